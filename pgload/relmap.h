/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Relation map (relmap) building: pg_class snapshots in, the dutlab-relmap
 * JSON document out (format: docs/relmap-format.md).
 * Pure code: the rows come from pgconn.c (libpq) or from test fixtures.
 *
 * History: a relation keeps its OID but gets a new relfilenode on TRUNCATE,
 * VACUUM FULL, CLUSTER, REINDEX or a tablespace move.  Each snapshot is
 * merged in: a row whose (db_oid, oid, tablespace_oid, relfilenode) is
 * already known extends that entry's [first_seen_ns, last_seen_ns] window;
 * any other row starts a new entry.  So one relation appears once per
 * storage it had while we watched, in the order first seen.
 */
#ifndef PGL_RELMAP_H
#define PGL_RELMAP_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#define PGL_NAME_LEN 64  /* NAMEDATALEN */

/* One pg_class row as the snapshot query returns it. */
struct pgl_relrow {
	uint32_t db_oid;                  /* 0 for shared catalogs */
	char database[PGL_NAME_LEN];
	uint32_t tablespace_oid;          /* 1663 pg_default, 1664 pg_global */
	char tablespace[PGL_NAME_LEN];
	uint32_t relfilenode;             /* pg_relation_filenode(oid) */
	uint32_t oid;
	char schema[PGL_NAME_LEN];
	char name[PGL_NAME_LEN];
	char relkind;                     /* pg_class.relkind */
	char parent[2 * PGL_NAME_LEN + 1];/* "schema.name" or "" */
};

struct pgl_relmap_entry {
	struct pgl_relrow row;
	const char *kind;                 /* table, index, toast, ... */
	uint64_t first_seen_ns, last_seen_ns;
};

struct pgl_relmap_proc {
	int pid;
	char role[PGL_NAME_LEN];          /* pg_stat_activity.backend_type */
};

struct pgl_relmap {
	uint32_t block_size;
	size_t n, cap;
	struct pgl_relmap_entry *e;
	size_t nprocs, procs_cap;
	struct pgl_relmap_proc *procs;
};

/* relkind + schema -> contract kind ("toast_index" is an index in pg_toast). */
const char *pgl_relkind_name(char relkind, const char *schema);

void pgl_relmap_init(struct pgl_relmap *m);
void pgl_relmap_free(struct pgl_relmap *m);
/* Merge one snapshot (rows of all databases) taken at now_ns.  -ENOMEM. */
int pgl_relmap_observe(struct pgl_relmap *m, const struct pgl_relrow *rows, size_t n,
		       uint64_t now_ns);
/* Record a backend; a pid already known keeps its first role.  -ENOMEM. */
int pgl_relmap_add_proc(struct pgl_relmap *m, int pid, const char *role);
/* The document; captured_at is an ISO-8601 UTC time.  NULL on ENOMEM. */
json_object *pgl_relmap_to_json(const struct pgl_relmap *m, const char *captured_at);

#endif
