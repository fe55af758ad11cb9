/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hot standby support, pure parts: standby names, postgresql.auto.conf
 * editing, replay lag samples and their summary, and how a run result with
 * standbys renders (series without NULL-lag rows, metrics, config.replica).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/lag.h"
#include "pgload/report.h"
#include "pgload/result.h"
#include "pgload/standby.h"
#include "tests/cu_main.h"

static void test_standby_name_from_dir(void)
{
	static const struct { const char *dir, *want; } rows[] = {
		{ "/tmp/x/stby", "stby" },
		{ "/tmp/x/stby/", "stby" },
		{ "/a/Standby-1//", "standby_1" },
		{ "/a/1abc", "s1abc" },
		{ "rel/dir.sync", "dir_sync" },
		{ "/", "standby" },
		{ "", "standby" },
		{ "/a/---", "standby" },
		{ "/a/\xc3\x9cn", "__n" },
		{ "/a/abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
		  "abcdefghijklmnopqrstuvwxyzabcdefghijklmn" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[64];

		pgl_standby_name_from_dir(rows[i].dir, buf, sizeof(buf));
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "\"%s\" -> \"%s\", want \"%s\"", rows[i].dir,
			 buf, rows[i].want);
	}
}

static void test_conf_drop_setting(void)
{
	static const struct { const char *in, *want; unsigned n; } rows[] = {
		{ "# Do not edit\nsynchronous_standby_names = '\"s1\"'\n", "# Do not edit\n", 1 },
		{ "a = '1'\nsynchronous_standby_names = '\"s1\"'\nb = '2'\n", "a = '1'\nb = '2'\n", 1 },
		/* another standby's value stays */
		{ "synchronous_standby_names = '\"s2\"'\n", "synchronous_standby_names = '\"s2\"'\n", 0 },
		{ "synchronous_standby_names = 'FIRST 1 (\"s1\", s2)'\n",
		  "synchronous_standby_names = 'FIRST 1 (\"s1\", s2)'\n", 0 },
		/* key case and spacing as the server accepts them; no final newline */
		{ "x = 'y'\n  Synchronous_Standby_Names='\"s1\"'", "x = 'y'\n", 1 },
		{ "#synchronous_standby_names = '\"s1\"'\n", "#synchronous_standby_names = '\"s1\"'\n", 0 },
		{ "", "", 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[256];
		unsigned n;

		snprintf(buf, sizeof(buf), "%s", rows[i].in);
		n = pgl_conf_drop_setting(buf, "synchronous_standby_names", "\"s1\"");
		CU_CHECK(n == rows[i].n && strcmp(buf, rows[i].want) == 0,
			 "row %zu: dropped %u (want %u), left \"%s\"", i, n, rows[i].n, buf);
	}
	{
		char v[32];

		pgl_standby_ssn_value("s1", v, sizeof(v));
		CU_CHECK(strcmp(v, "\"s1\"") == 0, "ssn value %s", v);
	}
}

static struct pgl_lag_sample smp(double t, double replay_ms, double bytes, bool times)
{
	struct pgl_lag_sample x = { .t_s = t, .write_ms = replay_ms / 4, .flush_ms = replay_ms / 2,
				    .replay_ms = replay_ms, .replay_bytes = bytes,
				    .has_times = times, .has_bytes = true };
	return x;
}

/* 100 samples of s1 with replay lag 1..100 ms, two idle ones (NULL lag), one async standby. */
static void fill(struct pgl_replica_lag *rl)
{
	struct pgl_lag_sample idle = smp(101, 0, 4096, false);

	memset(rl, 0, sizeof(*rl));
	rl->sampled = true;
	for (int i = 1; i <= 100; i++) {
		struct pgl_lag_sample a = smp(i, 5, 100, true);
		struct pgl_lag_sample b = smp(i, (double)(101 - i), (double)i * 1000, true);

		CU_CHECK(pgl_replica_lag_add(rl, "a_async", "streaming", "async", &a) == 0, "add a");
		CU_CHECK(pgl_replica_lag_add(rl, "s1", "streaming", "sync", &b) == 0, "add s1");
	}
	pgl_replica_lag_add(rl, "s1", "streaming", "sync", &idle);
	idle.has_bytes = false;
	pgl_replica_lag_add(rl, "s1", "streaming", "sync", &idle);
	/* s1 caught up 12 ms after the load; a_async was looked at and did not. */
	rl->sb[1].catchup_measured = rl->sb[1].caught_up = true;
	rl->sb[1].catchup_ms = 12;
	rl->sb[0].catchup_measured = true;
}

static void test_lag_summary_and_main(void)
{
	struct pgl_replica_lag rl;
	struct pgl_lag_summary s;

	fill(&rl);
	CU_CHECK(rl.nstandbys == 2 && rl.sb[1].n == 102 && rl.sb[1].idle_samples == 2,
		 "standbys %u, samples %zu, idle %u", rl.nstandbys, rl.sb[1].n, rl.sb[1].idle_samples);
	CU_CHECK(pgl_replica_lag_main(&rl) == 1 && strcmp(pgl_replica_lag_mode(&rl), "sync") == 0,
		 "the sync standby is the main one, though it came second");
	CU_CHECK(strcmp(pgl_standby_lag_mode(&rl.sb[0]), "async") == 0, "async mode");
	CU_CHECK(pgl_standby_lag_summarize(&rl.sb[1], &s) == 0, "summarize");
	CU_CHECK(s.n_times == 100 && s.n_bytes == 101, "counts: %zu times, %zu bytes", s.n_times, s.n_bytes);
	CU_CHECK(s.replay_p50_ms == 50 && s.replay_p99_ms == 99 && s.replay_max_ms == 100,
		 "nearest rank: p50 %g p99 %g max %g", s.replay_p50_ms, s.replay_p99_ms, s.replay_max_ms);
	CU_CHECK(s.flush_max_ms == 50 && s.write_max_ms == 25, "flush %g write %g", s.flush_max_ms,
		 s.write_max_ms);
	CU_CHECK(s.replay_bytes_max == 100000, "an idle sample's bytes count: max %g", s.replay_bytes_max);
	pgl_replica_lag_free(&rl);

	/* No standby, and more than the maximum. */
	memset(&rl, 0, sizeof(rl));
	CU_CHECK(pgl_replica_lag_main(&rl) == -1 && strcmp(pgl_replica_lag_mode(&rl), "none") == 0, "none");
	for (int i = 0; i < PGL_LAG_MAX_STANDBYS + 2; i++) {
		char name[16];
		struct pgl_lag_sample x = smp(1, 1, 1, true);

		snprintf(name, sizeof(name), "s%d", i);
		pgl_replica_lag_add(&rl, name, "streaming", "potential", &x);
	}
	CU_CHECK(rl.nstandbys == PGL_LAG_MAX_STANDBYS && rl.dropped_standbys == 2 &&
		 strcmp(pgl_replica_lag_mode(&rl), "async") == 0, "cap and potential = async");
	pgl_replica_lag_free(&rl);

	/* Only idle samples: no times, nothing invented. */
	memset(&rl, 0, sizeof(rl));
	{
		struct pgl_lag_sample x = smp(1, 0, 0, false);

		pgl_replica_lag_add(&rl, "s", "streaming", "async", &x);
	}
	CU_CHECK(pgl_standby_lag_summarize(&rl.sb[0], &s) == 0 && s.n_times == 0 && s.replay_max_ms == 0,
		 "idle only");
	pgl_replica_lag_free(&rl);
}

static double metric(struct dut_result_phase *ph, const char *name)
{
	double v = -1;
	const char *unit;

	if (dut_phase_get_metric(ph, name, &v, &unit) < 0)
		return -1;
	return v;
}

static void render(struct pgl_run_result *r, struct dut_result **doc_ret, char **text_ret)
{
	struct dut_result *doc = dut_result_new("pgload", "test");
	size_t len = 0;
	FILE *f = open_memstream(text_ret, &len);

	r->nthreads = 1;
	r->th = calloc(1, sizeof(*r->th));
	r->th[0].lat = dut_hist_new();
	r->th[0].lagh = dut_hist_new();
	r->t0_ns = r->bench_start_ns = 1;
	r->end_ns = 1000000001;
	pgl_mix_init(&r->cfg.mix);
	pgl_mix_add(&r->cfg.mix, "tpcb-like", NULL);
	r->cfg.clients = r->cfg.threads = r->cfg.max_tries = 1;
	pgl_settings_init(&r->settings);
	CU_CHECK(pgl_run_result_finish(r) == 0, "finish");
	CU_CHECK(pgl_run_to_doc(r, doc) == 0, "to doc");
	pgl_run_print(r, f);
	fclose(f);
	*doc_ret = doc;
}

static void test_run_doc_with_standbys(void)
{
	struct pgl_run_result r;
	struct dut_result *doc, *back = NULL;
	struct dut_result_phase *ph;
	struct dut_series *s;
	struct dut_error err = { "" };
	json_object *rep, *v;
	char *text = NULL, *json = NULL;

	memset(&r, 0, sizeof(r));
	fill(&r.replica);
	render(&r, &doc, &text);
	CU_CHECK(strstr(text, "standby s1 (sync): replay lag p50 50.0 ms, max 100.0 ms, max 0.10 MB behind; "
			"caught up 12 ms after the load\n") &&
		 strstr(text, "standby a_async (async): replay lag p50 5.0 ms") &&
		 strstr(text, "; not caught up 30 s after the load\n"), "summary:\n%s", text);
	/* Written and read back: no NaN anywhere, the shape a report reads. */
	CU_CHECK(dut_result_to_string(doc, &json) == 0, "serialises");
	CU_CHECK(json && dut_result_parse(json, strlen(json), &back, &err) == 0, "parses: %s", err.msg);
	ph = back ? dut_result_find_phase(back, "run") : NULL;
	CU_CHECK(ph != NULL, "run phase");
	if (ph) {
		s = dut_phase_get_series(ph, "replica_lag");
		CU_CHECK(s && dut_series_nrows(s) == 100 && dut_series_ncols(s) == 5 &&
			 dut_series_col(s, "replay_lag_bytes") == 2 &&
			 dut_series_get(s, 0, (size_t)dut_series_col(s, "replay_lag_ms")) == 100,
			 "replica_lag: the sync standby, 100 rows (the idle ones left out)");
		s = dut_phase_get_series(ph, "replica_lag.a_async");
		CU_CHECK(s && dut_series_nrows(s) == 100, "the other standby's series");
		CU_CHECK(metric(ph, "replay_lag_ms_p50") == 50 && metric(ph, "replay_lag_ms_p99") == 99 &&
			 metric(ph, "replay_lag_ms_max") == 100 && metric(ph, "replay_lag_bytes_max") == 100000 &&
			 metric(ph, "replay_catchup_ms") == 12,
			 "metrics p50 %g p99 %g max %g bytes %g", metric(ph, "replay_lag_ms_p50"),
			 metric(ph, "replay_lag_ms_p99"), metric(ph, "replay_lag_ms_max"),
			 metric(ph, "replay_lag_bytes_max"));
	}
	rep = NULL;
	CU_CHECK(back && json_object_object_get_ex(dut_result_json(back), "config", &v) &&
		 json_object_object_get_ex(v, "replica", &rep) &&
		 json_object_object_get_ex(rep, "mode", &v) && strcmp(json_object_get_string(v), "sync") == 0 &&
		 json_object_object_get_ex(rep, "application_name", &v) &&
		 strcmp(json_object_get_string(v), "s1") == 0, "config.replica = sync, s1");
	free(json);
	free(text);
	dut_result_free(back);
	dut_result_free(doc);
	pgl_run_result_free(&r);

	/* Without a standby: mode none, no series, no metrics, nothing printed. */
	memset(&r, 0, sizeof(r));
	render(&r, &doc, &text);
	ph = dut_result_find_phase(doc, "run");
	CU_CHECK(!strstr(text, "standby") && ph && !dut_phase_get_series(ph, "replica_lag") &&
		 metric(ph, "replay_lag_ms_max") == -1, "no standby: nothing about one");
	CU_CHECK(json_object_object_get_ex(dut_result_config(doc), "replica", &rep) &&
		 json_object_object_get_ex(rep, "mode", &v) && strcmp(json_object_get_string(v), "none") == 0,
		 "config.replica.mode none");
	free(text);
	dut_result_free(doc);
	pgl_run_result_free(&r);
}

static const struct cu_test tests[] = {
	{ "standby_name_from_dir", test_standby_name_from_dir },
	{ "conf_drop_setting", test_conf_drop_setting },
	{ "lag_summary_and_main", test_lag_summary_and_main },
	{ "run_doc_with_standbys", test_run_doc_with_standbys },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_lag", .tests = tests };
