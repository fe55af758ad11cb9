/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure half of pgload run's server-side evidence (pgload/servstat.h):
 * which queries each PostgreSQL major needs, deltas with absent counters,
 * the wait-event histogram, /proc/PID/stat parsing and CPU accounting with
 * processes that come and go, and the JSON member.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/servstat.h"
#include "tests/cu_main.h"

static bool has_col(const struct pgl_ctr_query *q, size_t n, enum pgl_ctr c)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < q[i].ncols; k++)
			if (q[i].cols[k] == c)
				return true;
	return false;
}

static void test_queries_by_version(void)
{
	static const struct {
		int version;
		size_t nq;
		const char *ckpt_view;     /* in the second query's SQL */
		bool wal, backend_bufs;
		const char *wal_io;        /* where wal_sync comes from */
	} rows[] = {
		{ 130012, 2, "FROM pg_stat_bgwriter", false, true, NULL },
		{ 140009, 3, "FROM pg_stat_bgwriter", true, true, "FROM pg_stat_wal" },
		{ 150020, 3, "FROM pg_stat_bgwriter", true, true, "FROM pg_stat_wal" },
		{ 160004, 3, "FROM pg_stat_bgwriter", true, true, "FROM pg_stat_wal" },
		{ 170002, 3, "pg_stat_checkpointer c", true, false, "FROM pg_stat_wal" },
		{ 180000, 3, "pg_stat_checkpointer c", true, false, "object = 'wal'" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_ctr_query q[PGL_CTR_MAX_QUERIES];
		size_t n = pgl_ctr_queries(rows[i].version, q);

		CU_CHECK(n == rows[i].nq, "%d: %zu queries", rows[i].version, n);
		CU_CHECK(n >= 2 && q[0].needs_dbname && strstr(q[0].sql, "pg_stat_database WHERE datname = $1"),
			 "%d: database query", rows[i].version);
		CU_CHECK(n >= 2 && strstr(q[1].sql, rows[i].ckpt_view), "%d: %s", rows[i].version, q[1].sql);
		CU_CHECK(has_col(q, n, PGL_CTR_WAL_SYNC) == rows[i].wal, "%d: wal_sync", rows[i].version);
		CU_CHECK(has_col(q, n, PGL_CTR_BUF_BACKEND) == rows[i].backend_bufs, "%d: buffers_backend",
			 rows[i].version);
		CU_CHECK(has_col(q, n, PGL_CTR_CKPT_TIMED) && has_col(q, n, PGL_CTR_BUF_CHECKPOINT) &&
			 has_col(q, n, PGL_CTR_CKPT_SYNC_TIME), "%d: checkpoints in every major", rows[i].version);
		if (rows[i].wal_io)
			CU_CHECK(n == 3 && strstr(q[2].sql, rows[i].wal_io), "%d: %s", rows[i].version, q[2].sql);
		/* what a version does not query is exactly what it says is absent */
		for (int c = 0; c < PGL_CTR_COUNT; c++)
			CU_CHECK(has_col(q, n, c) == (pgl_ctr_absent_why(rows[i].version, c) == NULL),
				 "%d: %s queried iff not absent", rows[i].version, pgl_ctr_info[c].name);
		for (size_t k = 0; k < n; k++) {
			/* the number of selected columns matches the map */
			const char *p = q[k].sql;
			unsigned commas = 0;

			for (; *p && strncmp(p, " FROM ", 6) != 0; p++)
				commas += *p == ',';
			CU_CHECK(commas + 1 == q[k].ncols, "%d: query %zu selects %u, maps %u", rows[i].version,
				 k, commas + 1, q[k].ncols);
		}
	}
}

static void test_store_row_and_delta(void)
{
	struct pgl_ctr_query q[PGL_CTR_MAX_QUERIES];
	struct pgl_ctr_set a = { 0 }, b = { 0 }, d;
	const char *v1[] = { "100", "1", "50", "1000", "2.5", "0", "0", "0" };
	const char *v2[] = { "1100", "3", "70", "3000", "4.0", "0", "1", "8192" };
	const char *bad[] = { "1x", "1", "1", "1", "1", "1", "1", "1" };
	const char *nulls[] = { "5", "6", "7", "8", NULL, NULL, NULL, NULL };
	bool reset;

	pgl_ctr_queries(150020, q);
	CU_CHECK(pgl_ctr_store_row(&q[0], v1, &a) == 0 && pgl_ctr_store_row(&q[0], v2, &b) == 0, "rows");
	CU_CHECK(pgl_ctr_store_row(&q[0], bad, &d) < 0, "a bad number is refused");
	pgl_ctr_delta(&a, &b, &d, &reset);
	CU_CHECK(!reset && d.have[PGL_CTR_XACT_COMMIT] && d.v[PGL_CTR_XACT_COMMIT] == 1000, "commits");
	CU_CHECK(d.v[PGL_CTR_BLK_READ_TIME] == 1.5 && d.v[PGL_CTR_TEMP_BYTES] == 8192, "times and bytes");
	CU_CHECK(!d.have[PGL_CTR_WAL_SYNC], "not read: absent, not 0");
	/* a statistics reset in between: the counter that went back is absent */
	pgl_ctr_delta(&b, &a, &d, &reset);
	CU_CHECK(reset && !d.have[PGL_CTR_XACT_COMMIT] && d.have[PGL_CTR_BLK_WRITE_TIME], "reset");
	/* SQL NULL (e.g. sum() over no row): absent */
	CU_CHECK(pgl_ctr_store_row(&q[0], nulls, &a) == 0 && a.have[PGL_CTR_BLKS_HIT] &&
		 !a.have[PGL_CTR_BLK_READ_TIME], "NULL is absent");
}

static void test_absent_reasons(void)
{
	static const struct {
		int version;
		const char *io, *wal_io;
		enum pgl_ctr c;
		const char *why;         /* NULL: present */
	} rows[] = {
		{ 130012, "on", "", PGL_CTR_WAL_SYNC, "PostgreSQL 13 has no pg_stat_wal" },
		{ 130012, "on", "", PGL_CTR_BLK_READ_TIME, NULL },
		{ 150020, "off", "on", PGL_CTR_BLK_READ_TIME, "track_io_timing was off" },
		{ 150020, "on", "off", PGL_CTR_WAL_SYNC_TIME, "track_wal_io_timing was off" },
		{ 150020, "on", "off", PGL_CTR_WAL_SYNC, NULL },
		{ 150020, "on", "on", PGL_CTR_CKPT_WRITE_TIME, NULL },
		{ 170002, "on", "on", PGL_CTR_BUF_BACKEND, "PostgreSQL 17 removed buffers_backend" },
		{ 170002, "off", "off", PGL_CTR_CKPT_SYNC_TIME, NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_servstat s = { .collected = true, .have_counters = true, .version_num = rows[i].version };

		for (int c = 0; c < PGL_CTR_COUNT; c++) {
			s.delta.have[c] = pgl_ctr_absent_why(rows[i].version, c) == NULL;
			s.delta.v[c] = 7;
		}
		snprintf(s.track_io_timing, sizeof(s.track_io_timing), "%s", rows[i].io);
		snprintf(s.track_wal_io_timing, sizeof(s.track_wal_io_timing), "%s", rows[i].wal_io);
		pgl_servstat_finish_counters(&s);
		if (rows[i].why)
			CU_CHECK(!s.delta.have[rows[i].c] && s.absent_why[rows[i].c] &&
				 strstr(s.absent_why[rows[i].c], rows[i].why), "%d %s: %s", rows[i].version,
				 pgl_ctr_info[rows[i].c].name, s.absent_why[rows[i].c] ? s.absent_why[rows[i].c] : "present");
		else
			CU_CHECK(s.delta.have[rows[i].c] && !s.absent_why[rows[i].c], "%d %s present",
				 rows[i].version, pgl_ctr_info[rows[i].c].name);
	}
}

/* The JSON member: absent counters are null, with the reason beside them. */
static void test_json_absent_is_null(void)
{
	struct pgl_servstat s = { .collected = true, .have_counters = true, .version_num = 130012,
				  .track_io_timing = "on", .interval_s = 10, .dbname = "postgres" };
	json_object *o, *ctr, *v;

	for (int c = 0; c < PGL_CTR_COUNT; c++) {
		s.delta.have[c] = c < PGL_CTR_WAL_RECORDS;
		s.delta.v[c] = c == PGL_CTR_XACT_COMMIT ? 1234 : 1;
	}
	pgl_servstat_finish_counters(&s);
	o = pgl_servstat_to_json(&s, 1234);
	CU_ASSERT_FATAL(o != NULL);
	ctr = json_object_object_get(o, "counters");
	CU_CHECK(json_object_object_get_ex(ctr, "wal_sync", &v) && v == NULL, "wal_sync null");
	CU_CHECK(json_object_get_double(json_object_object_get(ctr, "xact_commit")) == 1234, "commits");
	CU_CHECK(strstr(json_object_get_string(json_object_object_get(json_object_object_get(o, "absent"),
		 "wal_sync")), "no pg_stat_wal") != NULL, "reason");
	CU_CHECK(json_object_object_get(json_object_object_get(o, "cpu"), "server_s") == NULL,
		 "server CPU absent: null");
	json_object_put(o);
}

static void test_wait_histogram(void)
{
	static const struct { const char *bt, *type, *event; unsigned n; uint64_t sec; } rows[] = {
		{ "client backend", "IO", "WALSync", 41, 0 },
		{ "client backend", "LWLock", "WALWrite", 12, 0 },
		{ "client backend", "Client", "ClientRead", 30, 1 },
		{ "client backend", NULL, NULL, 17, 1 },
		{ "checkpointer", "Activity", "CheckpointerMain", 3, 0 },
		{ "checkpointer", "Timeout", "CheckpointWriteDelay", 1, 1 },
		{ "autovacuum worker", NULL, NULL, 5, 1 },     /* not sampled */
		{ "walwriter", "Activity", "WalWriterMain", 4, 0 },
	};
	struct pgl_waits w = { 0 };

	CU_CHECK(pgl_waits_sample(&w, 0) == 0 && pgl_waits_sample(&w, 1) == 0, "samples");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (unsigned k = 0; k < rows[i].n; k++)
			CU_CHECK(pgl_waits_add(&w, rows[i].bt, rows[i].type, rows[i].event, rows[i].sec) == 0, "add");
	pgl_waits_sort(&w);
	CU_CHECK(w.backend_samples == 100 && w.samples == 2, "%llu backend samples",
		 (unsigned long long)w.backend_samples);
	CU_CHECK(w.n == 7, "%zu entries", w.n);
	CU_CHECK(strcmp(w.e[0].proc, "backend") == 0 && strcmp(w.e[0].event, "WALSync") == 0 &&
		 fabs(pgl_wait_share(&w, &w.e[0]) - 0.41) < 1e-9, "top: %s:%s", w.e[0].type, w.e[0].event);
	CU_CHECK(strcmp(w.e[1].event, "ClientRead") == 0 && strcmp(w.e[2].type, "CPU") == 0 &&
		 strcmp(w.e[2].event, "running") == 0, "no wait event shows as CPU:running");
	CU_CHECK(strcmp(w.e[4].proc, "walwriter") == 0 && pgl_wait_share(&w, &w.e[4]) == 1.0, "walwriter");
	CU_CHECK(strcmp(w.e[5].proc, "checkpointer") == 0 && fabs(pgl_wait_share(&w, &w.e[5]) - 0.75) < 1e-9,
		 "checkpointer share among its samples");
	CU_CHECK(w.nsecs == 2 && w.sec_samples[0] == 1 && w.sec_ckpt_busy[0] == 0 && w.sec_ckpt_busy[1] == 1,
		 "checkpointer busy in second 1 only");
	/* more distinct events than fit: counted as dropped, not lost silently */
	for (unsigned i = 0; i < PGL_WAITS_MAX; i++) {
		char ev[16];

		snprintf(ev, sizeof(ev), "e%u", i);
		pgl_waits_add(&w, "client backend", "Lock", ev, 0);
	}
	CU_CHECK(w.n == PGL_WAITS_MAX && w.dropped == 7, "dropped %llu", (unsigned long long)w.dropped);
	pgl_waits_free(&w);
}

static void test_proc_stat_parse(void)
{
	static const struct {
		const char *text;
		int ok, pid, ppid;
		char state;
		const char *comm;
		uint64_t utime, stime, cutime, cstime, start;
	} rows[] = {
		{ "4242 (postgres) S 4200 4200 4200 0 -1 4194560 1180 0 0 0 25 7 3 1 20 0 1 0 812345 "
		  "230023168 3312 18446744073709551615 1 1 0 0 0 0 0 21122 0 0 0 0 17 1 0 0 0 0 0\n",
		  1, 4242, 4200, 'S', "postgres", 25, 7, 3, 1, 812345 },
		/* comm with spaces and parentheses: the fields start after the last ')' */
		{ "77 (a (b) c) d)) R 1 77 77 0 -1 0 0 0 0 0 100 200 0 0 20 0 1 0 99 0 0\n",
		  1, 77, 1, 'R', "a (b) c) d)", 100, 200, 0, 0, 99 },
		/* a backend's title as restore reads it: "postgres: a) b", tpgid -1, 25 fields */
		{ "4243 (postgres: a) b) S 4200 4242 4242 0 -1 4194560 1000 50 0 0 "
		  "123 45 6789 10 20 0 1 0 100 1000 200 18446744073709551615\n",
		  1, 4243, 4200, 'S', "postgres: a) b", 123, 45, 6789, 10, 100 },
		{ "78 (x y) Z 5 0 0 0 -1 0 0 0 0 0 1 2 3 4 -20 -5 1 0 7 0 0", 1, 78, 5, 'Z', "x y", 1, 2, 3, 4, 7 },
		{ "79 (short) S 1 2 3", 0 },
		{ "(nopid) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", 0 },
		{ "80 noparen S 1", 0 },
		{ "81 (bad) S 1 x 0 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 7 0", 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_proc_stat st;
		int r = dut_pstat_parse(rows[i].text, &st);

		CU_CHECK((r == 0) == rows[i].ok, "row %zu: r %d", i, r);
		if (r || !rows[i].ok)
			continue;
		CU_CHECK(st.pid == rows[i].pid && st.ppid == rows[i].ppid && st.state == rows[i].state &&
			 strcmp(st.comm, rows[i].comm) == 0, "row %zu: pid %d ppid %d state %c comm \"%s\"", i,
			 st.pid, st.ppid, st.state, st.comm);
		CU_CHECK(st.utime == rows[i].utime && st.stime == rows[i].stime && st.cutime == rows[i].cutime &&
			 st.cstime == rows[i].cstime && st.starttime == rows[i].start, "row %zu: times", i);
	}
}

#define KID(p, u, s, st) { .pid = p, .ppid = 10, .utime = u, .stime = s, .starttime = st }

static void test_cpu_account_with_churn(void)
{
	struct dut_proc_stat a_kids[] = {
		KID(11, 100, 50, 1),   /* checkpointer: +10 */
		KID(12, 30, 10, 2),    /* a backend that exits: its 40 before are not the run's */
		KID(13, 5, 5, 3),      /* pid 13 exits, and a new process gets pid 13 */
	};
	struct dut_proc_stat b_kids[] = {
		KID(11, 105, 55, 1),
		KID(13, 2, 1, 900),    /* new (other start time): counts whole, 3 */
		KID(14, 7, 0, 950),    /* new: 7 */
	};
	struct pgl_proc_snap a = { .pm = { .pid = 10, .utime = 1, .stime = 1, .cutime = 0, .cstime = 0,
					   .starttime = 0 }, .kids = a_kids, .nkids = 3 };
	/* reaped: pid 12 (40 + 25 in the run) and old 13 (10 + 4): cutime/cstime grow by 79 */
	struct pgl_proc_snap b = { .pm = { .pid = 10, .utime = 2, .stime = 1, .cutime = 60, .cstime = 19,
					   .starttime = 0 }, .kids = b_kids, .nkids = 3 };
	struct pgl_proc_snap other = b;
	struct pgl_cpu_delta d;

	CU_ASSERT_FATAL(pgl_cpu_account(&a, &b, &d) == 0);
	/* postmaster 1 + checkpointer 10 + reaped 79 - their 40 + 10 before + new 3 + 7 = 50 */
	CU_CHECK(d.ticks == 50, "ticks %llu", (unsigned long long)d.ticks);
	CU_CHECK(d.kids_start == 3 && d.kids_end == 3 && d.started == 2 && d.exited == 2,
		 "start %u end %u started %u exited %u", d.kids_start, d.kids_end, d.started, d.exited);
	other.pm.starttime = 5;
	CU_CHECK(pgl_cpu_account(&a, &other, &d) < 0, "another postmaster");
}

static const struct cu_test tests[] = {
	{ "queries_by_server_version", test_queries_by_version },
	{ "store_row_and_delta", test_store_row_and_delta },
	{ "absent_counters_say_why", test_absent_reasons },
	{ "json_absent_is_null_not_zero", test_json_absent_is_null },
	{ "wait_event_histogram", test_wait_histogram },
	{ "proc_stat_parse", test_proc_stat_parse },
	{ "cpu_account_with_process_churn", test_cpu_account_with_churn },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "unit", .tests = tests };
