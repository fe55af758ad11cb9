/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Relation maps (docs/relmap-format.md): relfilenode -> relation name and
 * kind, pid -> PostgreSQL process role.  The one owner of the format's
 * vocabulary: the kind names and which pg_class.relkind each stands for,
 * used by pgload's builder (pgload/relmap.c) and by every reader (the
 * report, dutlab run, dutfs --relmap).  Parsing is pure (text in, struct
 * out); relmap_load() reads a file.
 */
#ifndef DUT_RELMAP_H
#define DUT_RELMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

enum relmap_kind {
	RELMAP_TABLE = 0,
	RELMAP_INDEX,
	RELMAP_TOAST,
	RELMAP_TOAST_INDEX,
	RELMAP_SEQUENCE,
	RELMAP_MATVIEW,
	RELMAP_OTHER,
	RELMAP_KIND_COUNT
};

struct relmap_rel {
	uint32_t db_oid, tablespace_oid, relfilenode, oid;
	char *database, *schema, *name, *parent; /* never NULL ("" when absent) */
	enum relmap_kind kind;
	bool has_window;                         /* first/last_seen_ns given */
	uint64_t first_seen_ns, last_seen_ns;
	size_t order;                            /* position in the file */
};

struct relmap_proc {
	uint32_t pid;
	char *role;
};

struct relmap {
	uint32_t block_size;
	struct relmap_rel *rels;   /* sorted by (tablespace, db, relfilenode, order) */
	size_t nrels;
	/* relations in user tablespaces (not 1663/1664), sorted by (db,
	 * relfilenode, order): for files whose tablespace is unknown */
	const struct relmap_rel **user_ts;
	size_t nuser_ts;
	struct relmap_proc *procs; /* sorted by pid */
	size_t nprocs;
};

int relmap_parse(const char *text, size_t len, struct relmap **ret, struct dut_error *err);
int relmap_load(const char *path, struct relmap **ret, struct dut_error *err);
void relmap_free(struct relmap *m);

/*
 * The relation that held (tablespace, db, relfilenode) at time ts_ns: among
 * entries with that key, the one whose [first_seen_ns, last_seen_ns] window
 * contains ts_ns, else the last one in the file.  NULL if none.
 *
 * tablespace_oid 0 means unknown: a tablespace directory inside a dutfs
 * mount is traced by its own path, not through pg_tblspc/<oid>.  Then the
 * relations of user tablespaces with that (db, relfilenode) are used, when
 * they all lie in one tablespace (else NULL: ambiguous).
 */
const struct relmap_rel *relmap_lookup(const struct relmap *m, uint32_t tablespace_oid,
				       uint32_t db_oid, uint32_t relfilenode, uint64_t ts_ns);
const char *relmap_role(const struct relmap *m, uint32_t pid);
const char *relmap_kind_name(enum relmap_kind k);
/* The kind of a pg_class.relkind (an index in schema pg_toast is a toast_index;
 * partitioned tables, views and the rest are "other"): what pgload's builder writes. */
enum relmap_kind relmap_kind_of_relkind(char relkind, const char *schema);

#endif
