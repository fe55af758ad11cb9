/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Relation map parsing (json-c) and lookups.  Pure except relmap_load(). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/relmap.h"

/* A relation map of a million relations is about 250 MiB of JSON. */
#define RELMAP_MAX_BYTES ((size_t)256 << 20)
#define RELMAP_MAX_TEXT "256 MiB"

static const char *const kind_names[RELMAP_KIND_COUNT] = {
	[RELMAP_TABLE] = "table", [RELMAP_INDEX] = "index", [RELMAP_TOAST] = "toast",
	[RELMAP_TOAST_INDEX] = "toast_index", [RELMAP_SEQUENCE] = "sequence",
	[RELMAP_MATVIEW] = "matview", [RELMAP_OTHER] = "other",
};

enum relmap_kind relmap_kind_of_relkind(char relkind, const char *schema)
{
	switch (relkind) {
	case 'r':
		return RELMAP_TABLE;
	case 'i':
		return schema && strcmp(schema, "pg_toast") == 0 ? RELMAP_TOAST_INDEX : RELMAP_INDEX;
	case 't':
		return RELMAP_TOAST;
	case 'S':
		return RELMAP_SEQUENCE;
	case 'm':
		return RELMAP_MATVIEW;
	default:
		return RELMAP_OTHER;
	}
}

const char *relmap_kind_name(enum relmap_kind k)
{
	return (unsigned)k < RELMAP_KIND_COUNT ? kind_names[k] : "other";
}

void relmap_free(struct relmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nrels; i++) {
		free(m->rels[i].database);
		free(m->rels[i].schema);
		free(m->rels[i].name);
		free(m->rels[i].parent);
	}
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i].role);
	free(m->rels);
	free(m->user_ts);
	free(m->procs);
	free(m);
}
DUT_DEFINE_FREEP(struct relmap *, relmap_free)

static const char *jtype(json_object *o)
{
	return o ? json_type_to_name(json_object_get_type(o)) : "null";
}

/* An unsigned integer member <= max; absent is an error only when required. */
static int get_uint(json_object *obj, const char *where, const char *key, bool required,
		    uint64_t max, uint64_t *ret, struct dut_error *err)
{
	json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
		if (!required) {
			*ret = 0;
			return 0;
		}
		dut_error_set(err, "%s.%s: missing (expected an integer)", where, key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_int)) {
		dut_error_set(err, "%s.%s: expected an integer, found %s", where, key, jtype(v));
		return -EINVAL;
	}
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max) {
		dut_error_set(err, "%s.%s: %" PRId64 " is out of range (0..%" PRIu64 ")", where, key, x, max);
		return -EINVAL;
	}
	*ret = (uint64_t)x;
	return 0;
}

static int get_str(json_object *obj, const char *where, const char *key, bool required,
		   char **ret, struct dut_error *err)
{
	json_object *v;
	char *s;

	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required) {
			dut_error_set(err, "%s.%s: missing (expected a string)", where, key);
			return -EINVAL;
		}
		s = strdup("");
	} else if (!json_object_is_type(v, json_type_string)) {
		dut_error_set(err, "%s.%s: expected a string, found %s", where, key, jtype(v));
		return -EINVAL;
	} else {
		s = strdup(json_object_get_string(v));
	}
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int parse_rel(json_object *o, size_t i, struct relmap_rel *rel, struct dut_error *err)
{
	char where[64];
	_cleanup_free_ char *kind = NULL;
	uint64_t db, ts, rfn, oid, first, last;
	json_object *v;
	int r;

	snprintf(where, sizeof(where), "relations[%zu]", i);
	if (!json_object_is_type(o, json_type_object)) {
		dut_error_set(err, "%s: expected an object, found %s", where, jtype(o));
		return -EINVAL;
	}
	if ((r = get_uint(o, where, "db_oid", true, UINT32_MAX, &db, err)) < 0 ||
	    (r = get_uint(o, where, "tablespace_oid", true, UINT32_MAX, &ts, err)) < 0 ||
	    (r = get_uint(o, where, "relfilenode", true, UINT32_MAX, &rfn, err)) < 0 ||
	    (r = get_uint(o, where, "oid", false, UINT32_MAX, &oid, err)) < 0 ||
	    (r = get_uint(o, where, "first_seen_ns", false, UINT64_MAX >> 1, &first, err)) < 0 ||
	    (r = get_uint(o, where, "last_seen_ns", false, UINT64_MAX >> 1, &last, err)) < 0 ||
	    (r = get_str(o, where, "name", true, &rel->name, err)) < 0 ||
	    (r = get_str(o, where, "kind", true, &kind, err)) < 0 ||
	    (r = get_str(o, where, "database", false, &rel->database, err)) < 0 ||
	    (r = get_str(o, where, "schema", false, &rel->schema, err)) < 0 ||
	    (r = get_str(o, where, "parent", false, &rel->parent, err)) < 0)
		return r;
	rel->kind = RELMAP_KIND_COUNT;
	for (unsigned k = 0; k < RELMAP_KIND_COUNT; k++)
		if (strcmp(kind, kind_names[k]) == 0)
			rel->kind = (enum relmap_kind)k;
	if (rel->kind == RELMAP_KIND_COUNT) {
		dut_error_set(err, "%s.kind: \"%s\" is not one of table, index, toast, toast_index, "
			      "sequence, matview, other", where, kind);
		return -EINVAL;
	}
	rel->db_oid = (uint32_t)db;
	rel->tablespace_oid = (uint32_t)ts;
	rel->relfilenode = (uint32_t)rfn;
	rel->oid = (uint32_t)oid;
	/* A window counts only when it was given and is not the "unknown" 0..0. */
	rel->has_window = json_object_object_get_ex(o, "last_seen_ns", &v) && last > 0;
	rel->first_seen_ns = first;
	rel->last_seen_ns = last;
	rel->order = i;
	return 0;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct relmap_rel *x = a, *y = b;

	if (x->tablespace_oid != y->tablespace_oid)
		return x->tablespace_oid < y->tablespace_oid ? -1 : 1;
	if (x->db_oid != y->db_oid)
		return x->db_oid < y->db_oid ? -1 : 1;
	if (x->relfilenode != y->relfilenode)
		return x->relfilenode < y->relfilenode ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static bool user_tablespace(uint32_t ts)
{
	return ts != 1663 && ts != 1664 && ts != 0;
}

static int cmp_user_ts(const void *a, const void *b)
{
	const struct relmap_rel *x = *(const struct relmap_rel *const *)a;
	const struct relmap_rel *y = *(const struct relmap_rel *const *)b;

	if (x->db_oid != y->db_oid)
		return x->db_oid < y->db_oid ? -1 : 1;
	if (x->relfilenode != y->relfilenode)
		return x->relfilenode < y->relfilenode ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int index_user_tablespaces(struct relmap *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nrels; i++)
		n += user_tablespace(m->rels[i].tablespace_oid);
	if (n == 0)
		return 0;
	m->user_ts = calloc(n, sizeof(*m->user_ts));
	if (!m->user_ts)
		return -ENOMEM;
	for (size_t i = 0; i < m->nrels; i++)
		if (user_tablespace(m->rels[i].tablespace_oid))
			m->user_ts[m->nuser_ts++] = &m->rels[i];
	qsort(m->user_ts, m->nuser_ts, sizeof(*m->user_ts), cmp_user_ts);
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct relmap_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int parse_procs(json_object *root, struct relmap *m, struct dut_error *err)
{
	json_object *arr;
	size_t n;

	if (!json_object_object_get_ex(root, "processes", &arr) || json_object_is_type(arr, json_type_null))
		return 0;
	if (!json_object_is_type(arr, json_type_array)) {
		dut_error_set(err, "processes: expected an array, found %s", jtype(arr));
		return -EINVAL;
	}
	n = json_object_array_length(arr);
	m->procs = calloc(n ? n : 1, sizeof(*m->procs));
	if (!m->procs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		char where[64];
		uint64_t pid;
		int r;

		snprintf(where, sizeof(where), "processes[%zu]", i);
		if (!json_object_is_type(o, json_type_object)) {
			dut_error_set(err, "%s: expected an object, found %s", where, jtype(o));
			return -EINVAL;
		}
		r = get_uint(o, where, "pid", true, UINT32_MAX, &pid, err);
		if (r < 0)
			return r;
		r = get_str(o, where, "role", true, &m->procs[i].role, err);
		if (r < 0)
			return r;
		m->procs[i].pid = (uint32_t)pid;
		m->nprocs++;
	}
	qsort(m->procs, m->nprocs, sizeof(*m->procs), cmp_proc);
	return 0;
}

int relmap_parse(const char *text, size_t len, struct relmap **ret, struct dut_error *err)
{
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	json_tokener *tok;
	json_object *root, *v, *arr;
	uint64_t bs = 0;
	size_t n;
	int r;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_parse_end(tok) < len) {
		/* trailing whitespace is fine; anything else is not */
		size_t end = json_tokener_get_parse_end(tok);
		bool only_ws = root != NULL;

		for (size_t i = end; only_ws && i < len; i++)
			only_ws = strchr(" \t\r\n", text[i]) != NULL;
		if (!only_ws) {
			dut_error_set(err, "not valid JSON at byte %zu: %s", end,
				      root ? "unexpected data after the document"
					   : json_tokener_error_desc(json_tokener_get_error(tok)));
			json_object_put(root);
			json_tokener_free(tok);
			return -EINVAL;
		}
	}
	json_tokener_free(tok);

	r = -EINVAL;
	if (!json_object_is_type(root, json_type_object)) {
		dut_error_set(err, "expected a JSON object at the top, found %s", jtype(root));
		goto out;
	}
	if (!json_object_object_get_ex(root, "schema", &v) || !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "dutlab-relmap") != 0) {
		dut_error_set(err, "schema: expected \"dutlab-relmap\" (is this a relation map?)");
		goto out;
	}
	if (!json_object_object_get_ex(root, "schema_version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != 1) {
		dut_error_set(err, "schema_version: expected 1, found %s", v ? json_object_get_string(v) : "nothing");
		goto out;
	}
	r = -ENOMEM;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out;
	r = get_uint(root, "relmap", "block_size", false, 1u << 20, &bs, err);
	if (r < 0)
		goto out;
	m->block_size = bs ? (uint32_t)bs : 8192;
	r = -EINVAL;
	if (!json_object_object_get_ex(root, "relations", &arr) || !json_object_is_type(arr, json_type_array)) {
		dut_error_set(err, "relations: expected an array, found %s", jtype(arr));
		goto out;
	}
	n = json_object_array_length(arr);
	r = -ENOMEM;
	m->rels = calloc(n ? n : 1, sizeof(*m->rels));
	if (!m->rels)
		goto out;
	for (size_t i = 0; i < n; i++) {
		r = parse_rel(json_object_array_get_idx(arr, i), i, &m->rels[i], err);
		m->nrels++; /* count partial entries so relmap_free releases them */
		if (r < 0)
			goto out;
	}
	qsort(m->rels, m->nrels, sizeof(*m->rels), cmp_rel);
	r = index_user_tablespaces(m);
	if (r < 0)
		goto out;
	r = parse_procs(root, m, err);
	if (r < 0)
		goto out;
	*ret = TAKE_PTR(m);
	r = 0;
out:
	json_object_put(root);
	return r;
}

int relmap_load(const char *path, struct relmap **ret, struct dut_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct dut_error inner = { { 0 } };
	int r;

	if (fd < 0) {
		r = -errno;
		dut_error_set(err, "cannot open relation map %s: %s", path, strerror(-r));
		return r;
	}
	if ((r = dut_read_fd_alloc(fd, RELMAP_MAX_BYTES, 0, &text, &len)) < 0) {
		dut_error_set(err, "cannot read relation map %s: %s", path,
			      r == -EFBIG ? "larger than " RELMAP_MAX_TEXT : strerror(-r));
		return r;
	}
	r = relmap_parse(text, len, ret, &inner);
	if (r < 0)
		dut_error_set(err, "relation map %s: %s", path, inner.msg);
	return r;
}

/* tablespace unknown: the user-tablespace relations with (db, relfilenode) */
static const struct relmap_rel *lookup_any_tablespace(const struct relmap *m, uint32_t db_oid,
						      uint32_t relfilenode, uint64_t ts_ns)
{
	const struct relmap_rel *best = NULL;
	size_t lo = 0, hi = m->nuser_ts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct relmap_rel *r = m->user_ts[mid];

		if (r->db_oid < db_oid || (r->db_oid == db_oid && r->relfilenode < relfilenode))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->nuser_ts; i++) {
		const struct relmap_rel *r = m->user_ts[i];

		if (r->db_oid != db_oid || r->relfilenode != relfilenode)
			break;
		best = r; /* the last one in file order, unless a window matches */
		if (r->has_window && ts_ns >= r->first_seen_ns && ts_ns <= r->last_seen_ns)
			break;
	}
	for (size_t i = lo; best && i < m->nuser_ts; i++) {
		const struct relmap_rel *r = m->user_ts[i];

		if (r->db_oid != db_oid || r->relfilenode != relfilenode)
			break;
		if (r->tablespace_oid != best->tablespace_oid)
			return NULL; /* in two tablespaces: cannot tell */
	}
	return best;
}

const struct relmap_rel *relmap_lookup(const struct relmap *m, uint32_t tablespace_oid,
				       uint32_t db_oid, uint32_t relfilenode, uint64_t ts_ns)
{
	struct relmap_rel key = { .tablespace_oid = tablespace_oid, .db_oid = db_oid,
				  .relfilenode = relfilenode, .order = 0 };
	const struct relmap_rel *best = NULL;
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	if (tablespace_oid == 0)
		return lookup_any_tablespace(m, db_oid, relfilenode, ts_ns);
	hi = m->nrels;
	while (lo < hi) { /* first entry >= key */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_rel(&m->rels[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->nrels; i++) {
		const struct relmap_rel *r = &m->rels[i];

		if (r->tablespace_oid != tablespace_oid || r->db_oid != db_oid ||
		    r->relfilenode != relfilenode)
			break;
		if (r->has_window && ts_ns >= r->first_seen_ns && ts_ns <= r->last_seen_ns)
			return r;
		best = r; /* the last one in file order */
	}
	return best;
}

const char *relmap_role(const struct relmap *m, uint32_t pid)
{
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	hi = m->nprocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid].pid == pid)
			return m->procs[mid].role;
		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
