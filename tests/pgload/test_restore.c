/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload restore, pure part: TOC classification and lists, catalog diff, sidecar, /proc stat. */
#include <stdlib.h>
#include <string.h>

#include "pgload/restore.h"
#include "tests/cu_main.h"

/* What pg_restore -l prints (PostgreSQL 15), trimmed. */
static const char toc[] =
	";\n; Archive created at 2026-11-30 06:44:00 UTC\n;     dbname: pgload_ref_dss\n;\n"
	"; Selected TOC Entries:\n;\n"
	"215; 1259 16390 TABLE public lineitem postgres\n"
	"3320; 0 16390 TABLE DATA public lineitem postgres\n"
	"3321; 0 16393 TABLE DATA public orders postgres\n"
	"3175; 2606 16404 CONSTRAINT public orders orders_pkey postgres\n"
	"3180; 1259 16410 INDEX public lineitem_l_orderkey_idx postgres\n"
	"3181; 1259 16411 INDEX ATTACH public p1_idx postgres\n"
	"3182; 2606 16420 FK CONSTRAINT public lineitem lineitem_l_orderkey_fkey postgres\n"
	"3183; 2620 16421 TRIGGER public orders trg postgres\n";

static void test_classifies_toc_entries(void)
{
	static const struct { const char *line; int want; } rows[] = {
		{ "3175; 2606 16404 CONSTRAINT public orders orders_pkey postgres", PGL_RS_CONSTRAINTS },
		{ "3182; 2606 16420 FK CONSTRAINT public l l_fkey postgres", PGL_RS_FKEYS },
		{ "3180; 1259 16410 INDEX public i postgres", PGL_RS_INDEXES },
		{ "3181; 1259 16411 INDEX ATTACH public p1_idx postgres", PGL_RS_INDEXES },
		{ "3190; 2606 16430 CHECK CONSTRAINT public t c postgres", PGL_RS_CONSTRAINTS },
		{ "3183; 2620 16421 TRIGGER public orders trg postgres", PGL_RS_POST_OTHER },
		{ "3320; 0 16390 TABLE DATA public lineitem postgres", PGL_RS_POST_OTHER },
		{ "; Selected TOC Entries:", -ENOENT },
		{ "", -ENOENT },
		{ "CONSTRAINT public x", -EINVAL },
		{ "12; x 3 TABLE public t postgres", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int got = pgl_restore_toc_classify(rows[i].line);
		CU_CHECK(got == rows[i].want, "\"%s\": got %d, want %d", rows[i].line, got, rows[i].want);
	}
}

static void test_list_files_select_one_phase(void)
{
	static const struct { enum pgl_restore_phase p; int n; const char *kept; } rows[] = {
		{ PGL_RS_INDEXES, 2, "\n3180; 1259 16410 INDEX public lineitem_l_orderkey_idx postgres\n" },
		{ PGL_RS_CONSTRAINTS, 1, "\n3175; 2606 16404 CONSTRAINT public orders orders_pkey postgres\n" },
		{ PGL_RS_FKEYS, 1, "\n3182; 2606 16420 FK CONSTRAINT" },
		{ PGL_RS_POST_OTHER, 4, "\n3183; 2620 16421 TRIGGER" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int n = pgl_restore_toc_select(toc, rows[i].p, f);

		fclose(f);
		CU_CHECK(n == rows[i].n, "%s: %d entries, want %d", pgl_restore_phase_name(rows[i].p), n, rows[i].n);
		CU_CHECK(strstr(buf, rows[i].kept) != NULL, "%s: \"%s\" not kept", pgl_restore_phase_name(rows[i].p), rows[i].kept);
		/* every line is still there, the others commented out */
		CU_CHECK(len == strlen(toc) + (size_t)(8 - rows[i].n), "%s: %zu bytes", pgl_restore_phase_name(rows[i].p), len);
		free(buf);
	}
	CU_CHECK(pgl_restore_toc_select(toc, PGL_RS_DATA, stdout) == -EINVAL, "data is a section, not a list");
	CU_CHECK(pgl_restore_toc_count_type(toc, "TABLE DATA") == 2, "TABLE DATA count");
	CU_CHECK(pgl_restore_toc_count_type(toc, "FK CONSTRAINT") == 1, "FK CONSTRAINT count");
}

static void fill(struct pgl_restore_catalog *c, int64_t rows_b, const char *con_def)
{
	memset(c, 0, sizeof(*c));
	pgl_restore_catalog_add_table(c, "public.b", rows_b);
	pgl_restore_catalog_add_table(c, "public.a", 10);
	pgl_restore_catalog_add_con(c, "public.a", "a_pkey", "p", con_def);
	pgl_restore_catalog_add_index(c, "public.a", "a_pkey", "CREATE UNIQUE INDEX a_pkey ON public.a USING btree (id)");
	pgl_restore_catalog_sort(c);
}

static void test_catalog_diff_names_what_differs(void)
{
	static const struct { int64_t rows_b; const char *def; unsigned n; const char *says; } rows[] = {
		{ 5, "PRIMARY KEY (id)", 0, "" },
		{ 4, "PRIMARY KEY (id)", 1, "table public.b: 5 rows in the source, 4 restored" },
		{ 5, "PRIMARY KEY (id, x)", 2, "constraint missing after the restore: public.a|a_pkey|p|PRIMARY KEY (id)" },
	};
	struct pgl_restore_catalog want, got;
	char diff[512];

	fill(&want, 5, "PRIMARY KEY (id)");
	CU_CHECK(pgl_restore_catalog_rows(&want) == 15, "rows %lld", (long long)pgl_restore_catalog_rows(&want));
	CU_CHECK(strcmp(want.tables[0].name, "public.a") == 0, "sorted");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned n;

		fill(&got, rows[i].rows_b, rows[i].def);
		n = pgl_restore_catalog_diff(&want, &got, diff, sizeof(diff));
		CU_CHECK(n == rows[i].n, "row %zu: %u differences, want %u:\n%s", i, n, rows[i].n, diff);
		CU_CHECK(strstr(diff, rows[i].says) != NULL, "row %zu: \"%s\" not in\n%s", i, rows[i].says, diff);
		pgl_restore_catalog_free(&got);
	}
	memset(&got, 0, sizeof(got));
	CU_CHECK(pgl_restore_catalog_diff(&want, &got, diff, sizeof(diff)) == 4, "empty target: %s", diff);
	pgl_restore_catalog_free(&want);
}

static void test_sidecar_round_trip(void)
{
	struct pgl_restore_sidecar s = { .source = "host=/tmp port=5", .dbname = "d",
					 .server_version = "15.20", .created = "2026-11-30T06:44:00Z",
					 .dump_bytes = 566939, .dump_ns = 1 }, back;
	struct dut_error err = { "" };
	json_object *o;

	fill(&s.cat, 7, "PRIMARY KEY (id)");
	o = pgl_restore_sidecar_to_json(&s);
	CU_CHECK(pgl_restore_sidecar_from_json(o, &back, &err) == 0, "round trip: %s", err.msg);
	CU_CHECK(back.dump_bytes == 566939 && !strcmp(back.dbname, "d"), "fields");
	CU_CHECK(pgl_restore_catalog_diff(&s.cat, &back.cat, err.msg, sizeof(err.msg)) == 0, "catalog: %s", err.msg);
	pgl_restore_catalog_free(&back.cat);
	json_object_object_add(o, "tables", json_object_new_string("x"));
	CU_CHECK(pgl_restore_sidecar_from_json(o, &back, &err) == -EINVAL && strstr(err.msg, "\"tables\""),
		 "bad tables: %s", err.msg);
	json_object_object_add(o, "schema", json_object_new_string("dutlab-result"));
	CU_CHECK(pgl_restore_sidecar_from_json(o, &back, &err) == -EINVAL && strstr(err.msg, "pgload-restore-dump"),
		 "wrong schema: %s", err.msg);
	json_object_put(o);
	pgl_restore_catalog_free(&s.cat);
}

static void test_verdict(void)
{
	static const struct { uint64_t wall_ms, cpu_ms; unsigned usable; bool known; const char *want; } rows[] = {
		{ 1000, 1700, 2, true, "cpu-bound" },
		{ 1000, 1500, 2, true, "waiting" },
		{ 1000, 900, 1, true, "cpu-bound" },
		{ 1000, 300, 1, true, "waiting" },
		{ 1000, 900, 1, false, "unknown" },
		{ 20, 20, 1, true, "unknown" },      /* too short for tick-resolution CPU times */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_restore_phase_result p = {
			.ran = true, .wall_ns = rows[i].wall_ms * 1000000, .server_cpu_ns = rows[i].cpu_ms * 800000,
			.client_cpu_ns = rows[i].cpu_ms * 200000, .server_cpu_known = rows[i].known,
			.usable_cpus = rows[i].usable };
		const char *v = pgl_restore_verdict(&p);
		CU_CHECK(strcmp(v, rows[i].want) == 0, "row %zu: %s, want %s", i, v, rows[i].want);
	}
}

static const struct cu_test tests[] = {
	{ "classifies_toc_entries", test_classifies_toc_entries },
	{ "list_files_select_one_phase", test_list_files_select_one_phase },
	{ "catalog_diff_names_what_differs", test_catalog_diff_names_what_differs },
	{ "sidecar_round_trip", test_sidecar_round_trip },
	{ "verdict", test_verdict },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_restore", .tests = tests };
