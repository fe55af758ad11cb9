/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Settings report and the run result: merging threads, tps with and without connections. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/report.h"
#include "pgload/result.h"
#include "pgload/settings.h"
#include "tests/cu_main.h"

static void test_settings_pretty(void)
{
	static const struct { const char *name, *setting, *unit, *want; } rows[] = {
		{ "shared_buffers", "16384", "8kB", "128MB" },
		{ "wal_buffers", "512", "8kB", "4MB" },
		{ "wal_buffers", "-1", "8kB", "-1 (8kB)" },
		{ "max_wal_size", "1024", "MB", "1GB" },
		{ "min_wal_size", "80", "MB", "80MB" },
		{ "checkpoint_timeout", "300", "s", "5min" },
		{ "checkpoint_timeout", "90", "s", "90s" },
		{ "block_size", "8192", "", "8192" },
		{ "fsync", "on", "", "on" },
		{ "random_page_cost", "1.1", "", "1.1" },
		{ "effective_io_concurrency", "200", "", "200" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_settings st;
		char buf[64];

		pgl_settings_init(&st);
		pgl_settings_set(&st, rows[i].name, rows[i].setting, rows[i].unit);
		pgl_setting_pretty(pgl_settings_get(&st, rows[i].name), buf, sizeof(buf));
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "%s = %s %s -> \"%s\", want \"%s\"", rows[i].name,
			 rows[i].setting, rows[i].unit, buf, rows[i].want);
	}
}

static void test_settings_list_and_block_size(void)
{
	static const char *const required[] = {
		"shared_buffers", "wal_level", "wal_buffers", "max_wal_size", "min_wal_size", "fsync",
		"synchronous_commit", "full_page_writes", "checkpoint_timeout",
		"checkpoint_completion_target", "wal_sync_method", "block_size", "data_checksums",
		"effective_io_concurrency", "random_page_cost", "server_version",
	};
	struct pgl_settings st;
	uint32_t bs = 0;
	char buf[64];

	pgl_settings_init(&st);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		bool found = false;

		for (size_t k = 0; k < st.n; k++)
			found |= strcmp(st.s[k].name, required[i]) == 0;
		CU_CHECK(found, "setting %s is not reported", required[i]);
	}
	CU_CHECK(pgl_settings_block_size(&st, &bs) == -ENOENT, "block_size before it is set");
	pgl_setting_pretty(pgl_settings_get(&st, "fsync"), buf, sizeof(buf));
	CU_CHECK(strcmp(buf, "(not reported)") == 0, "absent setting prints \"%s\"", buf);
	CU_CHECK(pgl_settings_set(&st, "work_mem", "4096", "kB") == 0 && !pgl_settings_get(&st, "work_mem"),
		 "settings outside the list are ignored");
	pgl_settings_set(&st, "block_size", "32768", NULL);
	CU_CHECK(pgl_settings_block_size(&st, &bs) == 0 && bs == 32768, "block_size %u", bs);
	pgl_settings_set(&st, "block_size", "8k", NULL);
	CU_CHECK(pgl_settings_block_size(&st, &bs) == -EINVAL, "bad block_size accepted");
}

static void test_settings_json(void)
{
	struct pgl_settings st;
	json_object *o, *e, *v;

	pgl_settings_init(&st);
	pgl_settings_set(&st, "shared_buffers", "16384", "8kB");
	o = pgl_settings_to_json(&st);
	CU_CHECK(json_object_object_get_ex(o, "shared_buffers", &e) &&
		 json_object_object_get_ex(e, "value", &v) && strcmp(json_object_get_string(v), "128MB") == 0 &&
		 json_object_object_get_ex(e, "setting", &v) && strcmp(json_object_get_string(v), "16384") == 0,
		 "shared_buffers in JSON");
	CU_CHECK(json_object_object_get_ex(o, "fsync", &e) && e == NULL, "absent setting is null");
	json_object_put(o);
}

static void fill_thread(struct pgl_thread_result *t, uint64_t committed, uint64_t lat_ns,
			uint64_t conn_ns)
{
	t->lat = dut_hist_new();
	t->lagh = dut_hist_new();
	t->committed = committed;
	t->conn_ns_total = conn_ns;
	t->nconns = 2;
	for (uint64_t i = 0; i < committed; i++) {
		dut_hist_add(t->lat, lat_ns);
		pgl_thread_sec_add(t, i % 3, true, lat_ns, 0, 0);
	}
}

static void test_run_result_merge_and_tps(void)
{
	struct pgl_run_result r;

	memset(&r, 0, sizeof(r));
	r.nthreads = 2;
	r.th = calloc(2, sizeof(*r.th));
	fill_thread(&r.th[0], 300, 1000000, 5000000);
	fill_thread(&r.th[1], 600, 3000000, 7000000);
	r.th[1].retry.retries = 4;
	r.th[1].aborted_clients = 1;
	r.th[0].spin_hits = 700;
	r.th[1].spin_hits = 50;
	r.th[0].spin_misses = 50;
	r.th[1].spin_skips = 200;
	/* Connections take 1 s of a 4 s run: 900 txns -> 225 tps with, 300 without. */
	r.t0_ns = 10 * 1000000000ull;
	r.bench_start_ns = 11 * 1000000000ull;
	r.end_ns = 14 * 1000000000ull;
	CU_CHECK(pgl_run_result_finish(&r) == 0, "finish");
	CU_CHECK(r.committed == 900 && r.nconns == 4 && r.conn_ns_total == 12000000, "totals");
	CU_CHECK(r.retry.retries == 4 && r.aborted_clients == 1, "retry/aborted merge");
	CU_CHECK(r.spin_hits == 750 && r.spin_misses == 50 && r.spin_skips == 200, "spin merge");
	CU_CHECK(fabs(r.tps_incl - 225.0) < 1e-9 && fabs(r.tps_excl - 300.0) < 1e-9,
		 "tps %f / %f", r.tps_incl, r.tps_excl);
	CU_CHECK(r.lat_sum.count == 900 && r.lat_sum.max >= 2970000 && r.lat_sum.min <= 1010000,
		 "merged histogram: count %llu", (unsigned long long)r.lat_sum.count);
	CU_CHECK(fabs(r.lat_sum.mean - (300 * 1e6 + 600 * 3e6) / 900) < 1e5, "mean %f", r.lat_sum.mean);
	CU_CHECK(r.nsecs == 3 && r.secs[0].committed == 300 && r.secs[2].committed == 300,
		 "per-second series: %zu secs, %llu in the first", r.nsecs,
		 (unsigned long long)r.secs[0].committed);
	CU_CHECK(r.secs[1].lat_max_ns == 3000000, "per-second max");

	/* The renderers read the same struct. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	pgl_mix_init(&r.cfg.mix);
	pgl_mix_add(&r.cfg.mix, "tpcb-like", NULL);
	r.cfg.clients = 4;
	r.cfg.threads = 2;
	r.cfg.max_tries = 1;
	r.cfg.spin_mode = PGL_SPIN_FIXED;
	r.cfg.spin_ns = 80000;
	pgl_settings_init(&r.settings);
	pgl_run_print(&r, f);
	fclose(f);
	CU_CHECK(strstr(text, "tps = 225.000 (including connections)") &&
		 strstr(text, "tps = 300.000 (excluding connections)") &&
		 strstr(text, "number of transactions actually processed: 900") &&
		 strstr(text, "clients aborted: 1 of 4"), "human summary:\n%s", text);
	CU_CHECK(strstr(text, "client wait: spin up to 80 us before sleeping (--spin fixed; only "
			"threads that drive one client spin); of 1000 waits 75.0% answered in the "
			"spin, 5.0% spun then slept, 20.0% not spun (a statement of the script is slow)"), "spin line:\n%s", text);
	free(text);
	pgl_run_result_free(&r);
}

static void test_empty_run(void)
{
	struct pgl_run_result r;

	memset(&r, 0, sizeof(r));
	r.nthreads = 1;
	r.th = calloc(1, sizeof(*r.th));
	r.t0_ns = r.bench_start_ns = r.end_ns = 5;
	CU_CHECK(pgl_run_result_finish(&r) == 0 && r.tps_incl == 0 && r.tps_excl == 0 && r.nsecs == 0,
		 "an empty run has zero rates, not NaN");
	pgl_run_result_free(&r);
}

static const struct cu_test tests[] = {
	{ "settings_pretty", test_settings_pretty },
	{ "settings_list_and_block_size", test_settings_list_and_block_size },
	{ "settings_json", test_settings_json },
	{ "run_result_merge_and_tps", test_run_result_merge_and_tps },
	{ "empty_run", test_empty_run },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_report", .tests = tests };
