/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Relation map from fixture pg_class rows: kinds, shared catalogs, relfilenode history, JSON. */
#include <string.h>

#include "pgload/relmap.h"
#include "tests/cu_main.h"

#define ROW(db_, ts_, rfn_, oid_, schema_, name_, kind_, parent_) \
	{ .db_oid = (db_), .database = "bench", .tablespace_oid = (ts_), \
	  .tablespace = "ts", \
	  .relfilenode = (rfn_), .oid = (oid_), .schema = schema_, .name = name_, \
	  .relkind = (kind_), .parent = parent_ }

static const struct pgl_relrow snap1[] = {
	ROW(16384, 1663, 16397, 16391, "public", "pgbench_accounts", 'r', ""),
	ROW(16384, 1663, 16400, 16400, "public", "pgbench_accounts_pkey", 'i', "public.pgbench_accounts"),
	ROW(16384, 1663, 16394, 16394, "pg_toast", "pg_toast_16391", 't', "public.pgbench_accounts"),
	ROW(16384, 1663, 16395, 16395, "pg_toast", "pg_toast_16391_index", 'i', "public.pgbench_accounts"),
	ROW(16384, 1663, 16410, 16410, "public", "ids", 'S', ""),
	ROW(0, 1664, 1262, 1262, "pg_catalog", "pg_database", 'r', ""),
	ROW(16384, 1663, 1259, 1259, "pg_catalog", "pg_class", 'r', ""),
};

/* After TRUNCATE pgbench_accounts (table and index get new files) and
 * ALTER INDEX ... SET TABLESPACE fast (new file in another tablespace). */
static const struct pgl_relrow snap2[] = {
	ROW(16384, 1663, 16420, 16391, "public", "pgbench_accounts", 'r', ""),
	ROW(16384, 16500, 16421, 16400, "public", "pgbench_accounts_pkey", 'i', "public.pgbench_accounts"),
	ROW(16384, 1663, 16394, 16394, "pg_toast", "pg_toast_16391", 't', "public.pgbench_accounts"),
	ROW(16384, 1663, 16395, 16395, "pg_toast", "pg_toast_16391_index", 'i', "public.pgbench_accounts"),
	ROW(16384, 1663, 16410, 16410, "public", "ids", 'S', ""),
	ROW(0, 1664, 1262, 1262, "pg_catalog", "pg_database", 'r', ""),
	ROW(16384, 1663, 1259, 1259, "pg_catalog", "pg_class", 'r', ""),
};

static void test_kind_names(void)
{
	static const struct { char relkind; const char *schema, *kind; } rows[] = {
		{ 'r', "public", "table" }, { 'i', "public", "index" }, { 'i', "pg_toast", "toast_index" },
		{ 't', "pg_toast", "toast" }, { 'S', "public", "sequence" }, { 'm', "public", "matview" },
		{ 'p', "public", "other" }, { 'f', "public", "other" }, { 'i', NULL, "index" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(strcmp(pgl_relkind_name(rows[i].relkind, rows[i].schema), rows[i].kind) == 0,
			 "relkind %c in %s", rows[i].relkind, rows[i].schema ? rows[i].schema : "NULL");
}

static const struct pgl_relmap_entry *find(const struct pgl_relmap *m, uint32_t oid, uint32_t rfn)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].row.oid == oid && m->e[i].row.relfilenode == rfn)
			return &m->e[i];
	return NULL;
}

static void test_history_merge(void)
{
	struct pgl_relmap m;
	const size_t n1 = sizeof(snap1) / sizeof(snap1[0]);

	pgl_relmap_init(&m);
	CU_CHECK(pgl_relmap_observe(&m, snap1, n1, 100) == 0, "snap1");
	CU_CHECK(pgl_relmap_observe(&m, snap1, n1, 200) == 0, "snap1 again");
	CU_CHECK(m.n == n1, "the same snapshot twice adds nothing: %zu entries", m.n);
	CU_CHECK(pgl_relmap_observe(&m, snap2, n1, 300) == 0, "snap2");
	CU_CHECK(m.n == n1 + 2, "TRUNCATE + SET TABLESPACE add two entries: %zu", m.n);

	static const struct { uint32_t oid, rfn; uint64_t first, last; const char *kind; } want[] = {
		{ 16391, 16397, 100, 200, "table" },       /* old accounts file */
		{ 16391, 16420, 300, 300, "table" },       /* after TRUNCATE */
		{ 16400, 16400, 100, 200, "index" },
		{ 16400, 16421, 300, 300, "index" },       /* moved to tablespace 16500 */
		{ 16394, 16394, 100, 300, "toast" },
		{ 16395, 16395, 100, 300, "toast_index" },
		{ 16410, 16410, 100, 300, "sequence" },
		{ 1262, 1262, 100, 300, "table" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct pgl_relmap_entry *e = find(&m, want[i].oid, want[i].rfn);

		CU_CHECK(e != NULL, "oid %u rfn %u missing", want[i].oid, want[i].rfn);
		if (!e)
			continue;
		CU_CHECK(e->first_seen_ns == want[i].first && e->last_seen_ns == want[i].last,
			 "oid %u rfn %u: window [%llu, %llu]", want[i].oid, want[i].rfn,
			 (unsigned long long)e->first_seen_ns, (unsigned long long)e->last_seen_ns);
		CU_CHECK(strcmp(e->kind, want[i].kind) == 0, "oid %u: kind %s", want[i].oid, e->kind);
	}
	CU_CHECK(find(&m, 16400, 16421)->row.tablespace_oid == 16500, "index tablespace");
	CU_CHECK(find(&m, 1262, 1262)->row.db_oid == 0, "shared catalog keeps db_oid 0");
	pgl_relmap_free(&m);
}

static void test_procs_dedupe(void)
{
	struct pgl_relmap m;

	pgl_relmap_init(&m);
	pgl_relmap_add_proc(&m, 10, "checkpointer");
	pgl_relmap_add_proc(&m, 11, "client backend");
	pgl_relmap_add_proc(&m, 10, "checkpointer");
	pgl_relmap_add_proc(&m, 12, "");
	CU_CHECK(m.nprocs == 3, "%zu processes", m.nprocs);
	CU_CHECK(strcmp(m.procs[2].role, "unknown") == 0, "empty role -> %s", m.procs[2].role);
	pgl_relmap_free(&m);
}

static void test_json_document(void)
{
	struct pgl_relmap m;
	json_object *doc, *rels, *v, *first;

	pgl_relmap_init(&m);
	m.block_size = 8192;
	pgl_relmap_observe(&m, snap1, 2, 5);
	pgl_relmap_add_proc(&m, 4321, "walwriter");
	doc = pgl_relmap_to_json(&m, "2026-11-30T06:00:00Z");
	CU_CHECK(doc != NULL, "document");
	if (!doc)
		return;
	CU_CHECK(json_object_object_get_ex(doc, "schema", &v) &&
		 strcmp(json_object_get_string(v), "dutlab-relmap") == 0, "schema");
	CU_CHECK(json_object_object_get_ex(doc, "schema_version", &v) && json_object_get_int(v) == 1, "version");
	CU_CHECK(json_object_object_get_ex(doc, "block_size", &v) && json_object_get_int(v) == 8192, "block_size");
	CU_CHECK(json_object_object_get_ex(doc, "relations", &rels) && json_object_array_length(rels) == 2, "relations");
	first = json_object_array_get_idx(rels, 0);
	CU_CHECK(json_object_object_get_ex(first, "parent", &v) && v == NULL, "a table's parent is null");
	CU_CHECK(json_object_object_get_ex(first, "relfilenode", &v) && json_object_get_int(v) == 16397, "rfn");
	CU_CHECK(json_object_object_get_ex(json_object_array_get_idx(rels, 1), "parent", &v) &&
		 strcmp(json_object_get_string(v), "public.pgbench_accounts") == 0, "index parent");
	CU_CHECK(json_object_object_get_ex(doc, "processes", &v) && json_object_array_length(v) == 1, "processes");
	json_object_put(doc);
	pgl_relmap_free(&m);
}

static const struct cu_test tests[] = {
	{ "kind_names", test_kind_names },
	{ "history_merge", test_history_merge },
	{ "procs_dedupe", test_procs_dedupe },
	{ "json_document", test_json_document },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_relmap", .tests = tests };
