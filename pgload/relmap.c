/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/relmap.h"
#include "pgload/relmap.h"

const char *pgl_relkind_name(char relkind, const char *schema)
{
	return relmap_kind_name(relmap_kind_of_relkind(relkind, schema));
}

void pgl_relmap_init(struct pgl_relmap *m)
{
	memset(m, 0, sizeof(*m));
}

void pgl_relmap_free(struct pgl_relmap *m)
{
	free(m->e);
	free(m->procs);
	memset(m, 0, sizeof(*m));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static bool same_storage(const struct pgl_relrow *a, const struct pgl_relrow *b)
{
	return a->db_oid == b->db_oid && a->oid == b->oid &&
	       a->tablespace_oid == b->tablespace_oid && a->relfilenode == b->relfilenode;
}

int pgl_relmap_observe(struct pgl_relmap *m, const struct pgl_relrow *rows, size_t n,
		       uint64_t now_ns)
{
	for (size_t i = 0; i < n; i++) {
		const struct pgl_relrow *r = &rows[i];
		struct pgl_relmap_entry *e = NULL;

		/* Search newest first: the live entry is usually the last one. */
		for (size_t j = m->n; j-- > 0;) {
			if (same_storage(&m->e[j].row, r)) {
				e = &m->e[j];
				break;
			}
		}
		if (e) {
			if (now_ns > e->last_seen_ns)
				e->last_seen_ns = now_ns;
			if (now_ns < e->first_seen_ns)
				e->first_seen_ns = now_ns;
			/* A rename or ALTER TABLE SET SCHEMA keeps the storage: show the newest name. */
			memcpy(e->row.schema, r->schema, sizeof(e->row.schema));
			memcpy(e->row.name, r->name, sizeof(e->row.name));
			memcpy(e->row.parent, r->parent, sizeof(e->row.parent));
			continue;
		}
		if (grow((void **)&m->e, &m->cap, m->n + 1, sizeof(*m->e)) < 0)
			return -ENOMEM;
		e = &m->e[m->n++];
		e->row = *r;
		e->kind = pgl_relkind_name(r->relkind, r->schema);
		e->first_seen_ns = e->last_seen_ns = now_ns;
	}
	return 0;
}

int pgl_relmap_add_proc(struct pgl_relmap *m, int pid, const char *role)
{
	struct pgl_relmap_proc *p;

	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return 0;
	if (grow((void **)&m->procs, &m->procs_cap, m->nprocs + 1, sizeof(*m->procs)) < 0)
		return -ENOMEM;
	p = &m->procs[m->nprocs++];
	p->pid = pid;
	snprintf(p->role, sizeof(p->role), "%s", role && *role ? role : "unknown");
	return 0;
}

static int add(json_object *o, const char *k, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, k, v) < 0 ? -ENOMEM : 0;
}

static json_object *entry_to_json(const struct pgl_relmap_entry *e)
{
	const struct pgl_relrow *r = &e->row;
	json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= add(o, "db_oid", json_object_new_int64(r->db_oid));
	err |= add(o, "database", json_object_new_string(r->database));
	err |= add(o, "tablespace_oid", json_object_new_int64(r->tablespace_oid));
	err |= add(o, "tablespace", json_object_new_string(r->tablespace));
	err |= add(o, "relfilenode", json_object_new_int64(r->relfilenode));
	err |= add(o, "oid", json_object_new_int64(r->oid));
	err |= add(o, "schema", json_object_new_string(r->schema));
	err |= add(o, "name", json_object_new_string(r->name));
	err |= add(o, "kind", json_object_new_string(e->kind));
	if (r->parent[0])
		err |= add(o, "parent", json_object_new_string(r->parent));
	else
		err |= json_object_object_add(o, "parent", NULL) < 0 ? -ENOMEM : 0;
	err |= add(o, "first_seen_ns", json_object_new_int64((int64_t)e->first_seen_ns));
	err |= add(o, "last_seen_ns", json_object_new_int64((int64_t)e->last_seen_ns));
	if (err) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *pgl_relmap_to_json(const struct pgl_relmap *m, const char *captured_at)
{
	json_object *doc = json_object_new_object();
	json_object *rels = json_object_new_array();
	json_object *procs = json_object_new_array();
	int err = 0;

	if (!doc || !rels || !procs)
		goto fail;
	for (size_t i = 0; i < m->n; i++) {
		json_object *o = entry_to_json(&m->e[i]);

		if (!o || json_object_array_add(rels, o) < 0) {
			json_object_put(o);
			goto fail;
		}
	}
	for (size_t i = 0; i < m->nprocs; i++) {
		json_object *o = json_object_new_object();

		if (!o || add(o, "pid", json_object_new_int(m->procs[i].pid)) ||
		    add(o, "role", json_object_new_string(m->procs[i].role)) ||
		    json_object_array_add(procs, o) < 0) {
			json_object_put(o);
			goto fail;
		}
	}
	err |= add(doc, "schema", json_object_new_string("dutlab-relmap"));
	err |= add(doc, "schema_version", json_object_new_int(1));
	err |= add(doc, "captured_at", json_object_new_string(captured_at));
	err |= add(doc, "block_size", json_object_new_int64(m->block_size));
	err |= add(doc, "relations", rels);
	rels = NULL;
	err |= add(doc, "processes", procs);
	procs = NULL;
	if (err)
		goto fail;
	return doc;
fail:
	json_object_put(rels);
	json_object_put(procs);
	json_object_put(doc);
	return NULL;
}
