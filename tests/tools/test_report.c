/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pure report builder, the relmap parser and the export renderers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tests/cu_main.h"
#include "tools/report/export.h"
#include "lib/relmap.h"
#include "tools/report/report.h"

DUT_DEFINE_FREEP(struct report *, report_free)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)
DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)

/*
 * A synthetic trace, built in memory (the reader's output struct):
 *   id 1 base/5/16384        main fork  (table pgbench_accounts in the relmap)
 *   id 2 base/5/16390        main fork  (index pgbench_accounts_pkey)
 *   id 3 base/5/16384_fsm    fsm fork of the table
 *   id 4 pg_wal/0000...01    WAL
 *   id 5 base/5/16400        toast (relmap) / heap (no relmap)
 * markers: "load" at 1000, "run" at 2000; one record before "load".
 */
static struct dut_trace_file files[] = {
	{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16384 } },
	{ 2, "base/5/16390", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16390 } },
	{ 3, "base/5/16384_fsm", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_FSM, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16384 } },
	{ 4, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
	{ 5, "base/5/16400", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16400 } },
};

static struct dut_trace_marker markers[] = { { 1000, "load" }, { 2000, "run" } };

#define R(TS, OP, ID, OFF, LEN, PID) { .ts_ns = TS, .offset = OFF, .lat_ns = 1000, .len = LEN, \
	.result = (OP == DUT_OP_READ || OP == DUT_OP_WRITE) ? (int32_t)LEN : 0, .file_id = ID, .pid = PID, .op = OP }

static struct dut_trace_rec recs[] = {
	R(500, DUT_OP_READ, 1, 0, 8192, 10),          /* before "load"; first on file 1: random */
	R(1000, DUT_OP_READ, 1, 8192, 8192, 10),      /* seq */
	R(1100, DUT_OP_READ, 1, 16384, 8192, 10),     /* seq */
	R(1200, DUT_OP_READ, 1, 81920, 8192, 10),     /* random */
	R(1300, DUT_OP_WRITE, 1, 90112, 8192, 11),    /* seq: starts where the read ended */
	R(1400, DUT_OP_READ, 2, 0, 8192, 10),         /* index, random (first) */
	R(1500, DUT_OP_READ, 2, 8192, 8192, 10),      /* index, seq */
	R(1600, DUT_OP_WRITE, 3, 0, 8192, 11),        /* fsm, random */
	R(2000, DUT_OP_WRITE, 4, 0, 16384, 12),       /* wal, random (first) */
	R(2100, DUT_OP_WRITE, 4, 16384, 16384, 12),   /* wal, seq */
	R(2200, DUT_OP_WRITE, 4, 32768, 65536, 12),   /* wal, seq, 64 KiB */
	R(2300, DUT_OP_FDATASYNC, 4, 0, 0, 12),
	R(2400, DUT_OP_READ, 5, 0, 4096, 13),         /* toast or heap, random */
	R(2500, DUT_OP_OPEN, 1, 0, 0, 10),            /* other op */
};

static const struct dut_trace trace = {
	.files = files, .nfiles = 5, .recs = recs, .nrecs = DUT_ARRAY_SIZE(recs),
	.markers = markers, .nmarkers = 2, .has_footer = true,
	.footer = { .records_written = DUT_ARRAY_SIZE(recs) },
};

static const char relmap_json[] =
	"{ \"schema\": \"dutlab-relmap\", \"schema_version\": 1, \"block_size\": 8192,\n"
	"  \"relations\": [\n"
	"   { \"db_oid\": 5, \"database\": \"postgres\", \"tablespace_oid\": 1663, \"relfilenode\": 16384,\n"
	"     \"oid\": 16384, \"schema\": \"public\", \"name\": \"pgbench_accounts\", \"kind\": \"table\", \"parent\": null },\n"
	"   { \"db_oid\": 5, \"database\": \"postgres\", \"tablespace_oid\": 1663, \"relfilenode\": 16390,\n"
	"     \"oid\": 16390, \"schema\": \"public\", \"name\": \"pgbench_accounts_pkey\", \"kind\": \"index\",\n"
	"     \"parent\": \"public.pgbench_accounts\" },\n"
	"   { \"db_oid\": 5, \"database\": \"postgres\", \"tablespace_oid\": 1663, \"relfilenode\": 16400,\n"
	"     \"oid\": 16399, \"schema\": \"pg_toast\", \"name\": \"pg_toast_16384\", \"kind\": \"toast\" } ],\n"
	"  \"processes\": [ { \"pid\": 12, \"role\": \"walwriter\" }, { \"pid\": 10, \"role\": \"client backend\" } ] }\n";

static const struct rep_row *row(const struct rep_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

static void test_report_without_relmap(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	const struct rep_stats *heap, *tot;

	CU_ASSERT_EQUAL_FATAL(report_build(&trace, NULL, &rep), 0);
	CU_ASSERT_EQUAL_FATAL(rep->nphases, 4); /* whole, before, load, run */
	tot = &rep->phases[0].total;
	CU_ASSERT_EQUAL(tot->dir[REP_READ].ops, 7);
	CU_ASSERT_EQUAL(tot->dir[REP_READ].bytes, 6 * 8192 + 4096);
	CU_ASSERT_EQUAL(tot->dir[REP_READ].seq_ops, 3);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].ops, 5);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].seq_ops, 3);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].bytes, 2 * 8192 + 2 * 16384 + 65536);
	CU_ASSERT_EQUAL(tot->fsyncs, 1);
	CU_ASSERT_EQUAL(tot->other_ops, 1);
	/* sizes: 4 KiB bin 12, 8 KiB bin 13, 16 KiB bin 14, 64 KiB bin 16 */
	CU_ASSERT_EQUAL(tot->dir[REP_READ].size_bins[12], 1);
	CU_ASSERT_EQUAL(tot->dir[REP_READ].size_bins[13], 6);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].size_bins[13], 2);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].size_bins[14], 2);
	CU_ASSERT_EQUAL(tot->dir[REP_WRITE].size_bins[16], 1);

	/* without relmap: index and toast files are heap */
	heap = &rep->phases[0].cls[RC_HEAP];
	CU_ASSERT_EQUAL(heap->dir[REP_READ].ops, 7);
	CU_ASSERT_EQUAL(heap->dir[REP_READ].seq_ops, 3);
	CU_ASSERT_EQUAL(heap->dir[REP_WRITE].ops, 1);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_INDEX].dir[REP_READ].ops, 0);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_FSM].dir[REP_WRITE].ops, 1);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_WAL].dir[REP_WRITE].ops, 3);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_WAL].dir[REP_WRITE].seq_ops, 2);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_WAL].fsyncs, 1);
	CU_ASSERT_DOUBLE_EQUAL(rep_pct(tot->dir[REP_READ].seq_ops, tot->dir[REP_READ].ops), 300.0 / 7, 1e-9);

	/* phases */
	CU_ASSERT_STRING_EQUAL(rep->phases[1].name, "(before first marker)");
	CU_ASSERT_EQUAL(rep->phases[1].total.dir[REP_READ].ops, 1);
	CU_ASSERT_STRING_EQUAL(rep->phases[2].name, "load");
	CU_ASSERT_EQUAL(rep->phases[2].total.dir[REP_READ].ops, 5);
	CU_ASSERT_EQUAL(rep->phases[2].total.dir[REP_WRITE].ops, 2);
	CU_ASSERT_STRING_EQUAL(rep->phases[3].name, "run");
	CU_ASSERT_EQUAL(rep->phases[3].total.dir[REP_WRITE].ops, 3);
	CU_ASSERT_EQUAL(rep->phases[3].total.dir[REP_READ].ops, 1);
	CU_ASSERT_EQUAL(rep->phases[3].total.fsyncs, 1);
	CU_ASSERT_EQUAL(rep->phases[2].start_ns, 1000);
	CU_ASSERT_EQUAL(rep->phases[2].end_ns, 2000);

	/* files and relations: relation rows merge the fsm fork into the relation */
	CU_ASSERT_EQUAL(rep->nfiles, 5);
	CU_ASSERT_STRING_EQUAL(rep->files[0].name, "pg_wal/000000010000000000000001"); /* most bytes */
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->relations, rep->nrelations, "relfilenode 1663/5/16384"));
	CU_ASSERT_EQUAL(row(rep->relations, rep->nrelations, "relfilenode 1663/5/16384")->st.dir[REP_WRITE].ops, 2);
	CU_ASSERT_PTR_NOT_NULL(row(rep->relations, rep->nrelations, "(wal files)"));
	CU_ASSERT_EQUAL(rep->unmapped_rel_recs, 0);
	/* processes */
	CU_ASSERT_EQUAL(rep->nprocesses, 4);
	CU_ASSERT_STRING_EQUAL(row(rep->processes, rep->nprocesses, "pid 12")->detail, "");
}

static void test_report_with_relmap(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	struct dut_error err = { { 0 } };
	const struct rep_row *r;

	CU_ASSERT_EQUAL_FATAL(relmap_parse(relmap_json, strlen(relmap_json), &m, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_build(&trace, m, &rep), 0);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_READ].ops, 4);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_READ].seq_ops, 2);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_INDEX].dir[REP_READ].ops, 2);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_INDEX].dir[REP_READ].seq_ops, 1);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_TOAST].dir[REP_READ].ops, 1);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_FSM].dir[REP_WRITE].ops, 1); /* fsm regardless of kind */
	r = row(rep->relations, rep->nrelations, "postgres:pgbench_accounts");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_STRING_EQUAL(r->detail, "table");
	CU_ASSERT_EQUAL(r->st.dir[REP_READ].ops, 4);
	CU_ASSERT_EQUAL(r->st.dir[REP_WRITE].ops, 2); /* main + fsm */
	CU_ASSERT_PTR_NOT_NULL(row(rep->relations, rep->nrelations, "postgres:pgbench_accounts_pkey"));
	CU_ASSERT_PTR_NOT_NULL(row(rep->relations, rep->nrelations, "postgres:pg_toast.pg_toast_16384"));
	CU_ASSERT_STRING_EQUAL(row(rep->processes, rep->nprocesses, "pid 12")->detail, "walwriter");
	CU_ASSERT_STRING_EQUAL(row(rep->processes, rep->nprocesses, "pid 10")->detail, "client backend");
	CU_ASSERT_EQUAL(rep->unmapped_rel_recs, 0);
}

static void test_relmap_history_window(void)
{
	static const char j[] =
		"{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":["
		"{\"db_oid\":5,\"tablespace_oid\":1663,\"relfilenode\":7,\"name\":\"old\",\"kind\":\"table\","
		" \"first_seen_ns\":0,\"last_seen_ns\":100},"
		"{\"db_oid\":5,\"tablespace_oid\":1663,\"relfilenode\":7,\"name\":\"new\",\"kind\":\"index\","
		" \"first_seen_ns\":101,\"last_seen_ns\":200}]}";
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	struct dut_error err = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(relmap_parse(j, strlen(j), &m, &err), 0);
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 1663, 5, 7, 50)->name, "old");
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 1663, 5, 7, 150)->name, "new");
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 1663, 5, 7, 999)->name, "new"); /* outside: last */
	CU_ASSERT_PTR_NULL(relmap_lookup(m, 1663, 5, 8, 50));
	CU_ASSERT_PTR_NULL(relmap_lookup(m, 1664, 5, 7, 50));
}

/* A tablespace inside a dutfs mount is traced by its own path: tablespace 0. */
static void test_relmap_unknown_tablespace(void)
{
	static const char j[] =
		"{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":["
		"{\"db_oid\":5,\"tablespace_oid\":1663,\"relfilenode\":7,\"name\":\"dflt\",\"kind\":\"table\"},"
		"{\"db_oid\":5,\"tablespace_oid\":16390,\"relfilenode\":7,\"name\":\"old\",\"kind\":\"table\","
		" \"first_seen_ns\":0,\"last_seen_ns\":100},"
		"{\"db_oid\":5,\"tablespace_oid\":16390,\"relfilenode\":7,\"name\":\"new\",\"kind\":\"index\","
		" \"first_seen_ns\":101,\"last_seen_ns\":200},"
		"{\"db_oid\":5,\"tablespace_oid\":16390,\"relfilenode\":9,\"name\":\"a\",\"kind\":\"table\"},"
		"{\"db_oid\":5,\"tablespace_oid\":16391,\"relfilenode\":9,\"name\":\"b\",\"kind\":\"index\"},"
		"{\"db_oid\":6,\"tablespace_oid\":16391,\"relfilenode\":11,\"name\":\"c\",\"kind\":\"index\"}]}";
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	struct dut_error err = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(relmap_parse(j, strlen(j), &m, &err), 0);
	CU_ASSERT_EQUAL(m->nuser_ts, 5);
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 0, 5, 7, 50)->name, "old");
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 0, 5, 7, 150)->name, "new");
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 0, 5, 7, 999)->name, "new");
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 0, 6, 11, 0)->name, "c");
	CU_ASSERT_PTR_NULL(relmap_lookup(m, 0, 5, 9, 0));   /* in two tablespaces */
	CU_ASSERT_PTR_NULL(relmap_lookup(m, 0, 5, 11, 0));  /* other database */
	CU_ASSERT_PTR_NULL(relmap_lookup(m, 0, 5, 8, 0));
	CU_ASSERT_STRING_EQUAL(relmap_lookup(m, 1663, 5, 7, 0)->name, "dflt");
}

static void test_relmap_rejects_bad_input(void)
{
	static const struct {
		const char *json, *msg;
	} rows[] = {
		{ "", "not valid JSON" },
		{ "{", "not valid JSON" },
		{ "[]", "expected a JSON object" },
		{ "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"relations\":[]}", "dutlab-relmap" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":2,\"relations\":[]}", "schema_version" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1}", "relations: expected an array" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[1]}", "relations[0]: expected an object" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[{\"db_oid\":\"5\"}]}",
		  "relations[0].db_oid: expected an integer, found string" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[{\"db_oid\":5,"
		  "\"tablespace_oid\":1663,\"relfilenode\":-1,\"name\":\"x\",\"kind\":\"table\"}]}",
		  "relations[0].relfilenode: -1 is out of range" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[{\"db_oid\":5,"
		  "\"tablespace_oid\":1663,\"relfilenode\":1,\"kind\":\"table\"}]}", "relations[0].name: missing" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[{\"db_oid\":5,"
		  "\"tablespace_oid\":1663,\"relfilenode\":1,\"name\":\"x\",\"kind\":\"view\"}]}",
		  "relations[0].kind: \"view\" is not one of" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[],\"processes\":[{\"pid\":1}]}",
		  "processes[0].role: missing" },
		{ "{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":[]} x", "not valid JSON" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct relmap *m = NULL;
		struct dut_error err = { { 0 } };
		int r = relmap_parse(rows[i].json, strlen(rows[i].json), &m, &err);

		CU_CHECK(r == -EINVAL && m == NULL, "row %zu: ret %d", i, r);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "row %zu: \"%s\" lacks \"%s\"", i, err.msg, rows[i].msg);
		relmap_free(m);
	}
}

#define STARTS_WITH(s, lit) (strncmp((s), (lit), sizeof(lit) - 1) == 0)

static char *export_to_string(const struct export_opts *o, int *ret_r, struct dut_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret_r = export_write(&trace, o, f, NULL, err);
	fclose(f);
	return buf;
}

static void test_export_fio_and_csv(void)
{
	struct dut_error err = { { 0 } };
	_cleanup_free_ char *fio = NULL, *phase = NULL, *csv = NULL, *bad = NULL;
	int r;

	fio = export_to_string(&(struct export_opts){ .format = EXPORT_FIO, .prefix = "/d" }, &r, &err);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(STARTS_WITH(fio, "fio version 3 iolog\n0 /d/base/5/16384 add\n0 /d/base/5/16384 open\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fio, "\n0 /d/base/5/16384 read 0 8192\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fio, "/d/pg_wal/000000010000000000000001 datasync 0 0\n"));
	CU_ASSERT_PTR_NULL(strstr(fio, " open 0")); /* the OPEN record is not replayed */

	phase = export_to_string(&(struct export_opts){ .format = EXPORT_FIO, .phase = "run",
		.ops_mask = 1u << DUT_OP_WRITE }, &r, &err);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_PTR_NULL(strstr(phase, "base/5/16384"));
	CU_ASSERT_PTR_NOT_NULL(strstr(phase, "\n0 pg_wal/000000010000000000000001 write 0 16384\n"));
	CU_ASSERT_PTR_NULL(strstr(phase, "datasync"));

	bad = export_to_string(&(struct export_opts){ .format = EXPORT_FIO, .phase = "nope" }, &r, &err);
	CU_ASSERT_EQUAL(r, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "markers: \"load\", \"run\""));

	csv = export_to_string(&(struct export_opts){ .format = EXPORT_CSV }, &r, &err);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(STARTS_WITH(csv, "ts_ns,rel_ns,op,file_id,path,class,fork,offset,len,result,lat_ns,pid,flags\n"
			  "500,0,read,1,base/5/16384,rel,main,0,8192,8192,1000,10,0\n"));
	size_t lines = 0;
	for (const char *p = csv; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 1 + DUT_ARRAY_SIZE(recs));

	uint32_t mask = 0;
	CU_ASSERT_EQUAL(export_ops_parse("read,fdatasync", &mask, &err), 0);
	CU_ASSERT_EQUAL(mask, (1u << DUT_OP_READ) | (1u << DUT_OP_FDATASYNC));
	CU_ASSERT_EQUAL(export_ops_parse("read,sync", &mask, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "\"sync\""));
}


/*
 * A second small trace for the renderers: a WAL segment whose path is longer
 * than the name column (segments differ only in their last characters), an
 * fdatasync with a known latency, and writes the kernel wrote back.
 */
static struct dut_trace_file wal_files[] = {
	{ 1, "pgdata/pg_wal/0000000100000000000000A3", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 0xA3 } },
	{ 2, "pgdata/pg_wal/0000000100000000000000A4", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 0xA4 } },
	{ 3, "pgdata/base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16384 } },
};

static struct dut_trace_rec wal_recs[] = {
	R(100, DUT_OP_WRITE, 1, 0, 8192, 21),
	R(200, DUT_OP_WRITE, 1, 8192, 8192, 21),
	{ .ts_ns = 300, .lat_ns = 250000, .file_id = 1, .pid = 21, .op = DUT_OP_FDATASYNC },
	R(400, DUT_OP_WRITE, 2, 0, 16384, 21),
	{ .ts_ns = 500, .offset = 0, .lat_ns = 5000, .len = 8192, .result = 8192, .file_id = 3,
	  .pid = 4711, .op = DUT_OP_WRITE, .flags = DUT_TRACE_F_WRITEBACK },
	R(600, DUT_OP_WRITE, 3, 8192, 8192, 4711),
};

static const struct dut_trace wal_trace = {
	.files = wal_files, .nfiles = DUT_ARRAY_SIZE(wal_files), .recs = wal_recs,
	.nrecs = DUT_ARRAY_SIZE(wal_recs), .has_footer = true,
	.footer = { .records_written = DUT_ARRAY_SIZE(wal_recs) },
};

static char *render_human(const struct report *rep, enum rep_by by)
{
	struct report_opts o = { .trace_path = "t.dtr", .by = by };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(report_render_human.render(rep, &o, f, NULL), 0);
	fclose(f);
	return buf;
}

static void test_writeback_records_are_not_charged_to_their_pid(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	const struct rep_row *wb, *pid;

	CU_ASSERT_EQUAL_FATAL(report_build(&wal_trace, NULL, &rep), 0);
	wb = row(rep->processes, rep->nprocesses, "(kernel writeback)");
	pid = row(rep->processes, rep->nprocesses, "pid 4711");
	CU_ASSERT_PTR_NOT_NULL_FATAL(wb);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pid);
	CU_ASSERT_EQUAL(wb->st.dir[REP_WRITE].ops, 1);
	CU_ASSERT_EQUAL(pid->st.dir[REP_WRITE].ops, 1);
	/* the writeback write still counts for its file and class */
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_WRITE].ops, 2);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_WRITE].seq_ops, 1);
}

static void test_human_file_names_keep_their_distinguishing_tail(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_free_ char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(report_build(&wal_trace, NULL, &rep), 0);
	out = render_human(rep, REP_BY_FILE);
	CU_CHECK(strstr(out, "0000000100000000000000A3 ") != NULL, "segment A3 not named:\n%s", out);
	CU_CHECK(strstr(out, "0000000100000000000000A4 ") != NULL, "segment A4 not named:\n%s", out);
}

static void test_human_size_bins_are_half_open(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_free_ char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(report_build(&wal_trace, NULL, &rep), 0);
	out = render_human(rep, REP_BY_CLASS);
	/* 8 KiB writes are in [8 KiB, 16 KiB), 16 KiB writes in [16 KiB, 32 KiB) */
	CU_CHECK(strstr(out, "[8 KiB, 16 KiB)") != NULL, "no [8 KiB, 16 KiB) bin:\n%s", out);
	CU_CHECK(strstr(out, "[16 KiB, 32 KiB)") != NULL, "no [16 KiB, 32 KiB) bin:\n%s", out);
}

static void test_human_shows_fsync_latency(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_free_ char *out = NULL;
	const char *wal;

	CU_ASSERT_EQUAL_FATAL(report_build(&wal_trace, NULL, &rep), 0);
	out = render_human(rep, REP_BY_CLASS);
	CU_CHECK(strstr(out, "fs p99") != NULL, "no fsync latency column:\n%s", out);
	wal = strstr(out, "\n  wal ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(wal);
	CU_CHECK(strstr(wal, "250.0us") != NULL && strstr(wal, "250.0us") < strchr(wal + 1, '\n'),
		 "wal row lacks the 250 us fdatasync:\n%s", out);
}

static void test_json_report_reads_back(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	struct report_opts o = { .trace_path = "t.dtr", .by = REP_BY_CLASS };
	struct dut_result *res = NULL;
	struct dut_error err = { { 0 } };
	struct dut_hist_summary s;
	char dir[] = "/tmp/test_report.XXXXXX", path[64];
	json_object *extra, *v;
	double val;

	CU_ASSERT_EQUAL_FATAL(report_build(&wal_trace, NULL, &rep), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CU_ASSERT_EQUAL_FATAL(report_render_json.render(rep, &o, NULL, path), 0);
	CU_CHECK(dut_result_read_file(path, &res, &err) == 0, "read back: %s", err.msg);
	unlink(path);
	rmdir(dir);
	if (!res)
		return;
	CU_ASSERT_EQUAL(dut_result_phase_count(res), rep->nphases);
	CU_ASSERT_EQUAL(dut_phase_get_metric(dut_result_phase_at(res, 0), "write_ops", &val, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(val, 5, 0);
	CU_ASSERT_EQUAL(dut_phase_get_latency(dut_result_phase_at(res, 0), "fsync", &s), 0);
	CU_ASSERT_EQUAL(s.count, 1);
	extra = dut_phase_extra(dut_result_phase_at(res, 0));
	CU_CHECK(json_pointer_get(extra, "/classes/wal/fsync_latency_ns/p99", &v) == 0 &&
		 json_object_get_uint64(v) == dut_shist_percentile(rep->phases[0].cls[RC_WAL].fsync_lat, 99),
		 "classes.wal lacks fsync_latency_ns.p99");
	dut_result_free(res);
}

/*
 * dutfs time (trace 1.1): heap reads where dutfs took a third of the
 * request time (a finding), WAL writes and fdatasyncs where it took ~1 %,
 * index reads with a large share but too few to be a finding, one heap read
 * and an open without dutfs_ns (not counted).
 */
#define D(TS, OP, ID, OFF, LEN, LAT, DUTFS) { .ts_ns = TS, .offset = OFF, .lat_ns = LAT, .len = LEN, \
	.result = (OP == DUT_OP_READ || OP == DUT_OP_WRITE) ? (int32_t)LEN : 0, .file_id = ID, .pid = 30, \
	.op = OP, .dutfs_ns = DUTFS }

static struct dut_trace_rec dutfs_recs[] = {
	D(100, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(110, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(120, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(130, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(140, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(150, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(160, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(170, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(180, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(190, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(200, DUT_OP_READ, 3, 0, 8192, 10000, 5000), D(210, DUT_OP_READ, 3, 8192, 8192, 10000, 5000),
	D(220, DUT_OP_READ, 3, 0, 8192, 777777, 0),           /* not recorded: not counted */
	D(230, DUT_OP_OPEN, 3, 0, 0, 1000, 0),
	D(300, DUT_OP_WRITE, 1, 0, 8192, 90000, 1000), D(310, DUT_OP_WRITE, 1, 8192, 8192, 90000, 1000),
	D(320, DUT_OP_WRITE, 1, 16384, 8192, 90000, 1000), D(330, DUT_OP_WRITE, 1, 24576, 8192, 90000, 1000),
	D(340, DUT_OP_WRITE, 1, 32768, 8192, 90000, 1000), D(350, DUT_OP_WRITE, 1, 40960, 8192, 90000, 1000),
	D(360, DUT_OP_WRITE, 1, 49152, 8192, 90000, 1000), D(370, DUT_OP_WRITE, 1, 57344, 8192, 90000, 1000),
	D(380, DUT_OP_WRITE, 1, 65536, 8192, 90000, 1000), D(390, DUT_OP_WRITE, 1, 73728, 8192, 90000, 1000),
	D(400, DUT_OP_FDATASYNC, 1, 0, 0, 500000, 1000), D(410, DUT_OP_FDATASYNC, 1, 0, 0, 500000, 1000),
	D(500, DUT_OP_READ, 4, 0, 8192, 1000, 50000), D(510, DUT_OP_READ, 4, 0, 8192, 1000, 50000),
	D(520, DUT_OP_READ, 4, 0, 8192, 1000, 50000),
};

static struct dut_trace_file dutfs_files[] = {
	{ 1, "pgdata/pg_wal/0000000100000000000000A3", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 0xA3 } },
	{ 3, "pgdata/base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16384 } },
	{ 4, "pgdata/base/5/16390", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663, .relfilenode = 16390 } },
};

static const struct dut_trace dutfs_trace = {
	.hdr = { .version_major = 1, .version_minor = 1, .flags = DUT_TRACE_HDR_SYSCALL_VIEW },
	.files = dutfs_files, .nfiles = DUT_ARRAY_SIZE(dutfs_files), .recs = dutfs_recs,
	.nrecs = DUT_ARRAY_SIZE(dutfs_recs), .has_footer = true,
	.footer = { .records_written = DUT_ARRAY_SIZE(dutfs_recs) },
};

static const char dutfs_relmap_json[] =
	"{ \"schema\": \"dutlab-relmap\", \"schema_version\": 1, \"block_size\": 8192,\n"
	"  \"relations\": [\n"
	"   { \"db_oid\": 5, \"database\": \"postgres\", \"tablespace_oid\": 1663, \"relfilenode\": 16384,\n"
	"     \"oid\": 16384, \"schema\": \"public\", \"name\": \"t\", \"kind\": \"table\", \"parent\": null },\n"
	"   { \"db_oid\": 5, \"database\": \"postgres\", \"tablespace_oid\": 1663, \"relfilenode\": 16390,\n"
	"     \"oid\": 16390, \"schema\": \"public\", \"name\": \"t_pkey\", \"kind\": \"index\",\n"
	"     \"parent\": \"public.t\" } ] }\n";

static struct relmap *dutfs_relmap(void)
{
	struct relmap *m = NULL;
	struct dut_error err = { { 0 } };

	CU_CHECK(relmap_parse(dutfs_relmap_json, strlen(dutfs_relmap_json), &m, &err) == 0,
		 "relmap: %s", err.msg);
	return m;
}

static void test_dutfs_time_per_class_and_share(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_(relmap_freep) struct relmap *m = dutfs_relmap();
	const struct rep_phase *all;
	const struct rep_dutfs *heap, *wal, *idx, *tot;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(report_build(&dutfs_trace, m, &rep), 0);
	all = &rep->phases[0];
	heap = &all->cls[RC_HEAP].dutfs;
	wal = &all->cls[RC_WAL].dutfs;
	idx = &all->cls[RC_INDEX].dutfs;
	tot = &all->total.dutfs;
	CU_ASSERT(rep->dutfs_recorded);
	CU_ASSERT_EQUAL(all->cls[RC_HEAP].dir[REP_READ].ops, 13);
	CU_ASSERT_EQUAL(heap->reqs, 12);                 /* the read without dutfs_ns and the open are out */
	CU_ASSERT_EQUAL(heap->sum_ns, 12 * 5000);
	CU_ASSERT_EQUAL(heap->req_sum_ns, 12 * 15000);
	CU_ASSERT_DOUBLE_EQUAL(rep_dutfs_share_pct(heap), 100.0 / 3, 1e-9);
	CU_ASSERT_EQUAL(dut_shist_percentile(heap->hist, 50), 5000);
	CU_ASSERT_EQUAL(wal->reqs, 12);                  /* writes and fdatasyncs */
	CU_ASSERT_DOUBLE_EQUAL(rep_dutfs_share_pct(wal), 100.0 * 12000 / (12000 + 10 * 90000 + 2 * 500000), 1e-9);
	CU_ASSERT_EQUAL(idx->reqs, 3);
	CU_ASSERT_EQUAL(tot->reqs, 27);
	CU_ASSERT_EQUAL(tot->sum_ns, 12 * 5000 + 12 * 1000 + 3 * 50000);

	/* only heap is a finding: WAL's share is small, index has too few requests */
	CU_ASSERT_EQUAL_FATAL(rep->ndutfs_findings, 1);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].cls, RC_HEAP);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].reqs, 12);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].dutfs_p50_ns, 5000);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].lat_p50_ns, 10000); /* the 777 us read has no dutfs_ns */
}

/* The main job's trace had toast at 23 % dutfs time over 88 of 416k requests:
 * a class that small did not set the run's pace. */
static void test_dutfs_finding_needs_a_share_of_the_run(void)
{
	const struct rep_dutfs total = { .reqs = 416000, .sum_ns = 400000000ull, .req_sum_ns = 100000000000ull };
	struct rep_dutfs toast = { .reqs = 88, .sum_ns = 3000000ull, .req_sum_ns = 13000000ull };

	CU_ASSERT(rep_dutfs_share_pct(&toast) > REP_DUTFS_SHARE_FINDING_PCT);
	CU_CHECK(!rep_dutfs_is_finding(&toast, &total), "88 requests, 0.013 %% of the request time");
	/* the same share over a tenth of the run's request time is a finding */
	toast.reqs = 40000, toast.sum_ns = 2300000000ull, toast.req_sum_ns = 10000000000ull;
	CU_CHECK(rep_dutfs_is_finding(&toast, &total), "23 %% over 10 %% of the request time");
	/* at the edges: 5 % of the request time counts, 9 requests do not */
	toast.req_sum_ns = 5000000000ull, toast.sum_ns = 1150000000ull;
	CU_CHECK(rep_dutfs_is_finding(&toast, &total), "exactly 5 %% of the request time");
	toast.reqs = 9;
	CU_CHECK(!rep_dutfs_is_finding(&toast, &total), "9 requests");
	/* a large class where dutfs is cheap: not a finding */
	toast.reqs = 40000, toast.sum_ns = 100000000ull, toast.req_sum_ns = 50000000000ull;
	CU_CHECK(!rep_dutfs_is_finding(&toast, &total), "0.2 %% dutfs share");
}

static void test_human_shows_dutfs_time_and_finding(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_(relmap_freep) struct relmap *m = dutfs_relmap();
	_cleanup_free_ char *out = NULL;
	const char *tab, *heap;
	char want[128];

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(report_build(&dutfs_trace, m, &rep), 0);
	out = render_human(rep, REP_BY_CLASS);
	CU_CHECK(strstr(out, "the instrument, not the device, set the pace for heap: dutfs's own time "
			"was 33.3% of its request time (12 requests; median dutfs time 5000ns against "
			"a median latency of 10.0us)") != NULL, "no heap finding:\n%s", out);
	CU_CHECK(strstr(out, "set the pace for wal") == NULL, "a wal finding:\n%s", out);
	CU_CHECK(strstr(out, "set the pace for index") == NULL, "an index finding:\n%s", out);
	tab = strstr(out, "\ndutfs time (");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
	heap = strstr(tab, "\n  heap ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(heap);
	/* class, requests, p50, p99, max, share */
	snprintf(want, sizeof(want), "\n  %-34s %9s %9s %9s %9s %7s\n", "heap", "12", "5000ns", "5000ns",
		 "5000ns", "33.3%");
	CU_CHECK(strncmp(heap, want, strlen(want)) == 0, "heap row of the dutfs table: %.100s", heap + 1);
	CU_CHECK(strstr(out, "not recorded") == NULL, "says not recorded:\n%s", out);
}

static void test_json_has_dutfs_time_and_finding(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_(relmap_freep) struct relmap *m = dutfs_relmap();
	struct report_opts o = { .trace_path = "t.dtr", .by = REP_BY_CLASS };
	struct dut_result *res = NULL;
	struct dut_error err = { { 0 } };
	char dir[] = "/tmp/test_report.XXXXXX", path[64];
	json_object *extra, *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(report_build(&dutfs_trace, m, &rep), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CU_ASSERT_EQUAL_FATAL(report_render_json.render(rep, &o, NULL, path), 0);
	CU_CHECK(dut_result_read_file(path, &res, &err) == 0, "read back: %s", err.msg);
	unlink(path);
	rmdir(dir);
	if (!res)
		return;
	extra = dut_phase_extra(dut_result_phase_at(res, 0));
	CU_CHECK(json_pointer_get(extra, "/classes/heap/dutfs_ns/p50", &v) == 0 &&
		 json_object_get_uint64(v) == 5000, "classes.heap.dutfs_ns.p50");
	CU_CHECK(json_pointer_get(extra, "/classes/heap/dutfs_ns/requests", &v) == 0 &&
		 json_object_get_uint64(v) == 12, "classes.heap.dutfs_ns.requests");
	CU_CHECK(json_pointer_get(extra, "/classes/heap/dutfs_ns/share_pct", &v) == 0 &&
		 fabs(json_object_get_double(v) - 100.0 / 3) < 1e-6, "classes.heap.dutfs_ns.share_pct");
	CU_CHECK(json_pointer_get(extra, "/classes/toast/dutfs_ns", &v) == 0 && v == NULL,
		 "classes.toast.dutfs_ns is not null");
	CU_CHECK(json_pointer_get(extra, "/findings/0/class", &v) == 0 &&
		 strcmp(json_object_get_string(v), "heap") == 0, "findings[0].class");
	CU_CHECK(json_pointer_get(extra, "/findings/1", &v) != 0, "more than one finding");
	dut_result_free(res);
}

/*
 * A step repeated (repeat = 2) marks its label twice: the JSON document, whose
 * phase names are unique, names the second "run (2)" with the label in
 * extra.marker, where it used to fail with "Cannot allocate memory".
 */
static void test_json_with_a_repeated_marker_label(void)
{
	static struct dut_trace_marker twice[] = { { 1000, "run" }, { 2000, "run" } };
	struct dut_trace t = trace;
	_cleanup_(report_freep) struct report *rep = NULL;
	struct report_opts o = { .trace_path = "t.dtr", .by = REP_BY_PHASE };
	struct dut_result *res = NULL;
	struct dut_error err = { { 0 } };
	char dir[] = "/tmp/test_report.XXXXXX", path[64];
	json_object *v;

	t.markers = twice;
	CU_ASSERT_EQUAL_FATAL(report_build(&t, NULL, &rep), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CU_ASSERT_EQUAL_FATAL(report_render_json.render(rep, &o, NULL, path), 0);
	CU_CHECK(dut_result_read_file(path, &res, &err) == 0, "read back: %s", err.msg);
	unlink(path);
	rmdir(dir);
	if (!res)
		return;
	CU_CHECK(dut_result_find_phase(res, "run") != NULL, "no phase \"run\"");
	CU_CHECK(dut_result_find_phase(res, "run (2)") != NULL, "no phase \"run (2)\"");
	CU_CHECK(json_pointer_get(dut_phase_extra(dut_result_find_phase(res, "run (2)")), "/marker", &v) == 0 &&
		 strcmp(json_object_get_string(v), "run") == 0, "extra.marker of the second run");
	dut_result_free(res);
}

/* A 1.0 trace (the fixture of tests/lib/fixtures/trace, written by the 1.0 writer). */
static void test_v1_0_trace_says_not_recorded(void)
{
	_cleanup_(report_freep) struct report *rep = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	_cleanup_free_ char *out = NULL;
	struct dut_error err = { { 0 } };
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/lib/fixtures/trace/v1.0-mktrace.dtr", cu_source_root());
	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_build(t, NULL, &rep), 0);
	CU_ASSERT(!rep->dutfs_recorded);
	CU_ASSERT_EQUAL(rep->ndutfs_findings, 0);
	out = render_human(rep, REP_BY_PHASE);
	CU_CHECK(strstr(out, "dutfs time: not recorded (trace format 1.0") != NULL,
		 "1.0 trace: no \"not recorded\":\n%s", out);
	CU_CHECK(strstr(out, "dutfs time (") == NULL, "1.0 trace: a dutfs time table:\n%s", out);
}

static void test_export_ops_beyond_the_mask_are_not_aliased(void)
{
	/* op 40: a newer writer's op (or a damaged record); ops are u16 on disk */
	static struct dut_trace_rec odd[] = {
		{ .ts_ns = 10, .len = 1, .file_id = 1, .op = 40 },
		{ .ts_ns = 20, .offset = 7, .file_id = 1, .op = DUT_OP_TRUNCATE },
	};
	const struct dut_trace odd_trace = { .files = files, .nfiles = 1, .recs = odd, .nrecs = 2 };
	struct dut_error err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	uint64_t n = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(export_write(&odd_trace, &(struct export_opts){ .format = EXPORT_CSV,
		.ops_mask = 1u << DUT_OP_TRUNCATE }, f, &n, &err), 0);
	fclose(f);
	CU_CHECK(n == 1, "--ops truncate exported %" PRIu64 " records, want 1:\n%s", n, buf);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(export_write(&odd_trace, &(struct export_opts){ .format = EXPORT_CSV }, f, &n, &err), 0);
	fclose(f);
	CU_CHECK(n == 2 && strstr(buf, ",unknown,") != NULL, "default CSV: %" PRIu64 " records:\n%s", n, buf);
	free(buf);
}

static const struct cu_test tests[] = {
	{ "dutfs_time_per_class_and_share", test_dutfs_time_per_class_and_share },
	{ "dutfs_finding_needs_a_share_of_the_run", test_dutfs_finding_needs_a_share_of_the_run },
	{ "human_shows_dutfs_time_and_finding", test_human_shows_dutfs_time_and_finding },
	{ "json_has_dutfs_time_and_finding", test_json_has_dutfs_time_and_finding },
	{ "v1_0_trace_says_not_recorded", test_v1_0_trace_says_not_recorded },
	{ "report_without_relmap", test_report_without_relmap },
	{ "report_with_relmap", test_report_with_relmap },
	{ "relmap_history_window", test_relmap_history_window },
	{ "relmap_unknown_tablespace", test_relmap_unknown_tablespace },
	{ "relmap_rejects_bad_input", test_relmap_rejects_bad_input },
	{ "export_fio_and_csv", test_export_fio_and_csv },
	{ "writeback_records_are_not_charged_to_their_pid", test_writeback_records_are_not_charged_to_their_pid },
	{ "human_file_names_keep_their_distinguishing_tail", test_human_file_names_keep_their_distinguishing_tail },
	{ "human_size_bins_are_half_open", test_human_size_bins_are_half_open },
	{ "human_shows_fsync_latency", test_human_shows_fsync_latency },
	{ "json_report_reads_back", test_json_report_reads_back },
	{ "export_ops_beyond_the_mask_are_not_aliased", test_export_ops_beyond_the_mask_are_not_aliased },
	{ "json_with_a_repeated_marker_label", test_json_with_a_repeated_marker_label },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "report", .tests = tests };
