/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result documents: exact round trips, the reader's error messages on a
 * set of broken fixture documents, series, missing names, NaN handling,
 * atomic files and the host probe.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

static const char *fixture(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/lib/fixtures/result/%s", cu_source_root(), name);
	return path;
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Doubles that a lossy "%.15g" or "%g" would change. */
static const double tricky[] = {
	0.1, 1.0 / 3.0, 2.0 / 3.0, 1e300, -1e-300, 5e-324, 2.2250738585072014e-308,
	-0.0, 0.0, 9007199254740993.0, 123456789.123456789, 1e21, 1e22, 3.0, -7.5,
	1.7976931348623157e308, 4.35, 0.30000000000000004,
};

static const struct dut_hist_summary lat = {
	.count = 37035, .min = 412000, .max = UINT64_MAX, .mean = 1.0 / 3.0,
	.stddev = 1500000.5, .p50 = 2900000, .p90 = 4800000, .p99 = 9100000,
	.p999 = 31000000, .p9999 = (uint64_t)1 << 63,
};

static const struct dut_host host = {
	.hostname = "bench1", .kernel = "Linux 6.18.0 #1 SMP \"quoted\" \\ back",
	.cpu_model = "AMD EPYC 7B13 \xc3\xa9", .cpus = 4294967295u,
	.mem_bytes = 18446744073709551615ull,
};

static struct dut_result *build_full(void)
{
	static const char *const argv[] = { "pgload", "--name", "a b", "it's", "", "x=$HOME" };
	static const char *const cols[] = { "t_s", "tps", "lat_p99_ns" };
	static const char *const units[] = { "s", "tx/s", "ns" };
	struct dut_result *r = dut_result_new("pgload", "0.1.0");
	struct dut_result_phase *load, *run;
	struct dut_series *s;

	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(dut_result_set_command(r, 6, (char *const *)argv), 0);
	CU_ASSERT_EQUAL(dut_result_set_host(r, &host), 0);
	json_object_object_add(dut_result_target(r), "path", json_object_new_string("/mnt/dut"));
	json_object_object_add(dut_result_config(r), "scale", json_object_new_int(10));
	json_object_object_add(dut_result_config(r), "ratio", json_object_new_double(0.25));
	load = dut_result_add_phase(r, "load");
	run = dut_result_add_phase(r, "run");
	CU_ASSERT_FATAL(load && run);
	CU_ASSERT_EQUAL(dut_phase_set_duration(load, 12500000000ull), 0);
	CU_ASSERT_EQUAL(dut_phase_set_duration(run, UINT64_MAX), 0);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(tricky); i++) {
		char name[16];

		snprintf(name, sizeof(name), "m%zu", i);
		CU_ASSERT_EQUAL(dut_phase_set_metric(run, name, tricky[i], i % 2 ? "tx/s" : NULL), 0);
	}
	CU_ASSERT_EQUAL(dut_phase_set_latency(run, "txn", &lat), 0);
	s = dut_phase_add_series(run, "per_second", cols, units, 3);
	CU_ASSERT_FATAL(s != NULL);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(tricky); i++) {
		double row[3] = { (double)i, tricky[i], -tricky[DUT_ARRAY_SIZE(tricky) - 1 - i] };

		CU_ASSERT_EQUAL(dut_series_append(s, row), 0);
	}
	json_object_object_add(dut_phase_extra(run), "checkpoints", json_object_new_int(3));
	return r;
}

static void check_full(const struct dut_result *r, const char *what)
{
	struct dut_result_phase *run;
	struct dut_hist_summary got;
	struct dut_host h;
	struct dut_series *s;
	uint64_t d;
	json_object *v;

	CU_CHECK(strcmp(dut_result_tool_name(r), "pgload") == 0, "%s: tool name", what);
	CU_CHECK(strcmp(dut_result_tool_version(r), "0.1.0") == 0, "%s: tool version", what);
	CU_CHECK(json_object_object_get_ex(dut_result_json(r), "tool", &v) &&
		 json_object_object_get_ex(v, "command", &v) &&
		 strcmp(json_object_get_string(v), "pgload --name 'a b' 'it'\\''s' '' 'x=$HOME'") == 0,
		 "%s: command \"%s\"", what, json_object_get_string(v));
	CU_ASSERT_EQUAL_FATAL(dut_result_get_host(r, &h), 0);
	CU_CHECK(strcmp(h.hostname, host.hostname) == 0 && strcmp(h.kernel, host.kernel) == 0 &&
		 strcmp(h.cpu_model, host.cpu_model) == 0 && h.cpus == host.cpus &&
		 h.mem_bytes == host.mem_bytes, "%s: host differs", what);
	CU_CHECK(dut_result_phase_count(r) == 2, "%s: %zu phases", what, dut_result_phase_count(r));
	CU_CHECK(strcmp(dut_phase_name(dut_result_phase_at(r, 0)), "load") == 0, "%s: phase 0", what);
	CU_CHECK(dut_phase_get_duration(dut_result_phase_at(r, 0), &d) == 0 && d == 12500000000ull,
		 "%s: load duration", what);
	run = dut_result_find_phase(r, "run");
	CU_ASSERT_FATAL(run != NULL);
	CU_CHECK(dut_phase_get_duration(run, &d) == 0 && d == UINT64_MAX, "%s: run duration %llu",
		 what, (unsigned long long)d);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(tricky); i++) {
		char name[16];
		const char *unit = NULL;
		double val = NAN;

		snprintf(name, sizeof(name), "m%zu", i);
		CU_CHECK(dut_phase_get_metric(run, name, &val, &unit) == 0 && same_double(val, tricky[i]) &&
			 strcmp(unit, i % 2 ? "tx/s" : "") == 0,
			 "%s: metric %s = %.17g, want %.17g", what, name, val, tricky[i]);
	}
	CU_ASSERT_EQUAL_FATAL(dut_phase_get_latency(run, "txn", &got), 0);
	CU_CHECK(got.count == lat.count && got.min == lat.min && got.max == lat.max &&
		 same_double(got.mean, lat.mean) && same_double(got.stddev, lat.stddev) &&
		 got.p50 == lat.p50 && got.p90 == lat.p90 && got.p99 == lat.p99 &&
		 got.p999 == lat.p999 && got.p9999 == lat.p9999, "%s: latency differs", what);
	s = dut_phase_get_series(run, "per_second");
	CU_ASSERT_FATAL(s != NULL);
	CU_CHECK(dut_series_ncols(s) == 3 && dut_series_nrows(s) == DUT_ARRAY_SIZE(tricky),
		 "%s: series %zux%zu", what, dut_series_nrows(s), dut_series_ncols(s));
	CU_CHECK(dut_series_col(s, "lat_p99_ns") == 2, "%s: column index", what);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(tricky); i++) {
		double want[3] = { (double)i, tricky[i], -tricky[DUT_ARRAY_SIZE(tricky) - 1 - i] };

		for (size_t c = 0; c < 3; c++)
			CU_CHECK(same_double(dut_series_get(s, i, c), want[c]),
				 "%s: series[%zu][%zu] = %.17g, want %.17g", what, i, c,
				 dut_series_get(s, i, c), want[c]);
	}
	CU_CHECK(json_object_object_get_ex(dut_phase_extra(run), "checkpoints", &v) &&
		 json_object_get_int(v) == 3, "%s: extra", what);
	CU_CHECK(json_object_object_get_ex(dut_result_config((struct dut_result *)r), "ratio", &v) && json_object_get_double(v) == 0.25,
		 "%s: config", what);
}

/* A plan in a document nests deeper than json-c's default of 32 (TPC-H Q21: 33+). */
static void test_deep_plans_are_read(void)
{
	_cleanup_(dut_result_freep) struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };
	char text[8192];
	size_t n = 0;
	int ret;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "{\"schema\": \"dutlab-result\", \"schema_version\": 1, "
			      "\"tool\": {\"name\": \"x\", \"version\": \"\"}, \"phases\": [{\"name\": \"p\", "
			      "\"extra\": {\"plan\": ");
	for (int i = 0; i < 200; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "{\"Plans\": [");
	for (int i = 0; i < 200; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "]}");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "}}]}");
	CU_ASSERT_FATAL(n < sizeof(text));
	ret = dut_result_parse(text, n, &r, &err);
	CU_CHECK(ret == 0, "a 400-level plan is refused: %s", err.msg);
}

static void test_round_trip_is_exact(void)
{
	_cleanup_(dut_result_freep) struct dut_result *r = build_full();
	_cleanup_(dut_result_freep) struct dut_result *back = NULL;
	_cleanup_free_ char *text = NULL, *text2 = NULL;
	struct dut_error err = { { 0 } };
	int ret;

	check_full(r, "built");
	CU_ASSERT_EQUAL_FATAL(dut_result_to_string(r, &text), 0);
	ret = dut_result_parse(text, strlen(text), &back, &err);
	CU_CHECK(ret == 0, "parse of our own output failed: %s", err.msg);
	CU_ASSERT_FATAL(back != NULL);
	check_full(back, "read back");
	/* serialising what we read gives the same bytes */
	CU_ASSERT_EQUAL_FATAL(dut_result_to_string(back, &text2), 0);
	CU_CHECK(strcmp(text, text2) == 0, "re-serialised document differs:\n%s\n---\n%s", text, text2);
	/* shortest round-trip text, and integers for nanoseconds */
	CU_CHECK(strstr(text, "\"value\": 0.1,") != NULL, "0.1 not written as 0.1");
	CU_CHECK(strstr(text, "0.10000000000000001") == NULL, "lossy-looking %%.17g output");
	CU_CHECK(strstr(text, "\"duration_ns\": 18446744073709551615") != NULL,
		 "uint64 duration not an exact integer");
	CU_CHECK(strstr(text, "\"p99.99\": 9223372036854775808") != NULL, "p99.99 not exact");
	CU_CHECK(strstr(text, "\n  \"schema\": \"dutlab-result\"") != NULL, "not 2-space pretty");
	CU_CHECK(text[strlen(text) - 1] == '\n', "no final newline");
}

static void test_fixtures_valid(void)
{
	static const char *const files[] = { "valid.json", "valid-unknown-members.json",
					     "valid-minimal.json" };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(files); i++) {
		_cleanup_(dut_result_freep) struct dut_result *r = NULL;
		struct dut_error err = { { 0 } };
		int ret = dut_result_read_file(fixture(files[i]), &r, &err);

		CU_CHECK(ret == 0, "%s: %d %s", files[i], ret, err.msg);
	}

	_cleanup_(dut_result_freep) struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };
	struct dut_result_phase *ph;
	struct dut_hist_summary s;
	struct dut_series *ser;
	const char *unit;
	double v;
	uint64_t d;

	CU_ASSERT_EQUAL_FATAL(dut_result_read_file(fixture("valid.json"), &r, &err), 0);
	CU_ASSERT_STRING_EQUAL(dut_result_tool_name(r), "pgload");
	ph = dut_result_find_phase(r, "run");
	CU_ASSERT_FATAL(ph != NULL);
	CU_ASSERT(dut_phase_get_duration(ph, &d) == 0 && d == 30000000000ull);
	CU_ASSERT(dut_phase_get_metric(ph, "tps", &v, &unit) == 0 && v == 1234.5 &&
		  strcmp(unit, "tx/s") == 0);
	/* an integer where a number is expected is fine */
	CU_ASSERT(dut_phase_get_metric(ph, "wal_bytes", &v, NULL) == 0 && v == 1073741824.0);
	CU_ASSERT(dut_phase_get_latency(ph, "txn", &s) == 0 && s.count == 37035 &&
		  s.p999 == 31000000 && s.mean == 3240123.75);
	ser = dut_phase_get_series(ph, "per_second");
	CU_ASSERT(ser && dut_series_nrows(ser) == 3 && dut_series_get(ser, 2, 1) == 1253.0 &&
		  dut_series_get(ser, 1, 1) == 1250.5);
	/* a document without the optional containers still hands out objects */
	_cleanup_(dut_result_freep) struct dut_result *min = NULL;
	CU_ASSERT_EQUAL_FATAL(dut_result_read_file(fixture("valid-minimal.json"), &min, &err), 0);
	CU_ASSERT(dut_result_target(min) && dut_result_config(min) &&
		  dut_phase_extra(dut_result_phase_at(min, 0)));
	CU_ASSERT_EQUAL(dut_phase_set_metric(dut_result_phase_at(min, 0), "x", 1.0, "B"), 0);
}

static void test_fixtures_invalid_say_where_and_what(void)
{
	static const struct {
		const char *file;
		const char *msg; /* a fragment of the expected message */
	} rows[] = {
		{ "invalid-truncated.json", "unexpected end of document" },
		{ "invalid-trailing-text.json", "line 2, column 1:" },
		{ "invalid-root-array.json", "document: expected an object, found an array" },
		{ "invalid-empty.json", "empty document" },
		{ "invalid-wrong-schema.json", "schema: expected \"dutlab-result\", found \"fio-result\"" },
		{ "invalid-newer-version.json", "schema version 2, this dutlab reads version 1" },
		{ "invalid-version-string.json",
		  "schema_version: expected a non-negative integer, found a string" },
		{ "invalid-missing-tool.json", "tool: missing, expected an object" },
		{ "invalid-metric-string.json",
		  "phases[1].metrics.tps.value: expected a number, found a string" },
		{ "invalid-metric-no-unit.json",
		  "phases[0].metrics.rows_per_s.unit: missing, expected a string" },
		{ "invalid-latency-negative.json",
		  "phases[1].latency.txn.p99: expected a non-negative integer, found a negative integer" },
		{ "invalid-latency-unit.json", "phases[1].latency.txn.unit: expected \"ns\", found \"ms\"" },
		{ "invalid-series-row-length.json",
		  "phases[1].series.per_second.rows[1]: expected 2 values (one per column), found 3" },
		{ "invalid-series-units-count.json",
		  "phases[1].series.per_second.units: expected 2 units (one per column), found 1" },
		{ "invalid-series-null-cell.json",
		  "phases[1].series.per_second.rows[0][1]: expected a number, found null" },
		{ "invalid-series-duplicate-column.json",
		  "phases[1].series.per_second.columns[1]: duplicate column \"t_s\"" },
		{ "invalid-duplicate-phase.json", "phases[1].name: duplicate phase name \"run\"" },
		{ "invalid-host-cpus-fraction.json",
		  "host.cpus: expected a non-negative integer, found a number with a fraction" },
		{ "invalid-phases-object.json", "phases: expected an array, found an object" },
		{ "invalid-duration-exponent.json",
		  "phases[0].duration_ns: expected a non-negative integer, found a number" },
		{ "invalid-target-array.json", "target: expected an object, found an array" },
		{ "invalid-nan.json", "config.ratio: number is not finite" },
		{ "invalid-infinity-exponent.json", "phases[1].metrics.tps.value: number is not finite" },
		{ "invalid-bad-utf8.json", "line 1, column" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_result *r = NULL;
		struct dut_error err = { { 0 } };
		int ret = dut_result_read_file(fixture(rows[i].file), &r, &err);

		CU_CHECK(ret == -EINVAL && r == NULL, "%s: ret %d, want -EINVAL", rows[i].file, ret);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "%s:\n    got  \"%s\"\n    want \"...%s...\"",
			 rows[i].file, err.msg, rows[i].msg);
		/* file errors name the file */
		CU_CHECK(strstr(err.msg, rows[i].file) != NULL, "%s: message lacks the file name",
			 rows[i].file);
		dut_result_free(r);
	}
}

static void test_parse_rejects_bad_input(void)
{
	static const struct {
		const char *text;
		size_t len;
		const char *msg;
	} rows[] = {
		{ "{\"a\":1}\0{}", 10, "NUL byte" },
		{ "", 0, "empty document" },
		{ "{\"schema\": \"dutlab-result\", \"schema_version\": 0}", 0, "expected a version >= 1" },
		{ "{\"a\": tru}", 0, "line 1, column 10: boolean expected" },
		{ "{\"a\":\n  [1,\n  2}", 0, "line 3, column 4" },
		{ "{\"a\": [1,]}", 0, "line 1, column" },
		{ "{\"schema\": \"dutlab-result\", \"schema_version\": 1, \"tool\": {\"name\": \"x\","
		  "\"version\": \"1\"}, \"phases\": [{\"name\": \"\"}]}", 0, "phases[0].name: empty phase name" },
		{ "{\"schema\": \"dutlab-result\", \"schema_version\": 1, \"tool\": {\"name\": \"x\","
		  "\"version\": \"1\"}, \"host\": {\"hostname\": \"h\", \"kernel\": \"k\", \"cpu_model\": \"c\","
		  "\"cpus\": 4294967296, \"mem_bytes\": 1}, \"phases\": []}", 0, "host.cpus: 4294967296 is too large" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_result *r = NULL;
		struct dut_error err = { { 0 } };
		size_t len = rows[i].len ? rows[i].len : strlen(rows[i].text);
		int ret = dut_result_parse(rows[i].text, len, &r, &err);

		CU_CHECK(ret == -EINVAL && !r, "row %zu: ret %d", i, ret);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "row %zu: \"%s\", want \"...%s...\"", i,
			 err.msg, rows[i].msg);
		dut_result_free(r);
	}
	CU_ASSERT_EQUAL(dut_result_parse(NULL, 0, NULL, NULL), -EINVAL);
}

static void test_series_append_and_get(void)
{
	static const char *const cols[] = { "t_s", "iops", "bw_bytes_per_s" };
	_cleanup_(dut_result_freep) struct dut_result *r = dut_result_new("dutprobe", "0.1.0");
	struct dut_result_phase *ph = dut_result_add_phase(r, "randwrite");
	struct dut_series *s;

	CU_ASSERT_FATAL(ph != NULL);
	s = dut_phase_add_series(ph, "per_second", cols, NULL, 3);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(dut_series_nrows(s), 0);
	for (int i = 0; i < 100; i++) {
		double row[3] = { i, 1000.0 + i / 7.0, 4096.0 * (1000.0 + i / 7.0) };

		CU_ASSERT_EQUAL(dut_series_append(s, row), 0);
	}
	CU_ASSERT_EQUAL(dut_series_nrows(s), 100);
	CU_ASSERT_EQUAL(dut_series_ncols(s), 3);
	CU_ASSERT(same_double(dut_series_get(s, 99, 1), 1000.0 + 99 / 7.0));
	CU_ASSERT(same_double(dut_series_get(s, 0, 0), 0.0));
	CU_ASSERT(isnan(dut_series_get(s, 100, 0)));
	CU_ASSERT(isnan(dut_series_get(s, 0, 3)));
	CU_ASSERT_EQUAL(dut_series_col(s, "t_s"), 0);
	CU_ASSERT_EQUAL(dut_series_col(s, "bw_bytes_per_s"), 2);
	CU_ASSERT_EQUAL(dut_series_col(s, "lat"), -ENOENT);
	CU_ASSERT_PTR_EQUAL(dut_phase_get_series(ph, "per_second"), s);

	/* refused: NaN/inf cells (nothing appended), duplicates, no columns */
	double bad[3] = { 1, NAN, 2 }, inf[3] = { 1, 2, -INFINITY };
	CU_ASSERT_EQUAL(dut_series_append(s, bad), -EINVAL);
	CU_ASSERT_EQUAL(dut_series_append(s, inf), -EINVAL);
	CU_ASSERT_EQUAL(dut_series_nrows(s), 100);
	CU_ASSERT_PTR_NULL(dut_phase_add_series(ph, "per_second", cols, NULL, 3));
	CU_ASSERT_PTR_NULL(dut_phase_add_series(ph, "none", cols, NULL, 0));
	static const char *const dup[] = { "a", "a" };
	CU_ASSERT_PTR_NULL(dut_phase_add_series(ph, "dup", dup, NULL, 2));
	CU_ASSERT_PTR_NULL(dut_phase_get_series(ph, "dup"));
}

static void test_missing_names_are_enoent(void)
{
	_cleanup_(dut_result_freep) struct dut_result *r = dut_result_new("dutprobe", "0.1.0");
	struct dut_result_phase *ph = dut_result_add_phase(r, "run");
	struct dut_hist_summary s;
	struct dut_host h;
	uint64_t d;
	double v;

	CU_ASSERT_FATAL(ph != NULL);
	CU_ASSERT_EQUAL(dut_phase_get_metric(ph, "tps", &v, NULL), -ENOENT);
	CU_ASSERT_EQUAL(dut_phase_get_latency(ph, "txn", &s), -ENOENT);
	CU_ASSERT_EQUAL(dut_phase_get_duration(ph, &d), -ENOENT);
	CU_ASSERT_EQUAL(dut_result_get_host(r, &h), -ENOENT);
	CU_ASSERT_PTR_NULL(dut_phase_get_series(ph, "per_second"));
	CU_ASSERT_PTR_NULL(dut_result_find_phase(r, "load"));
	CU_ASSERT_PTR_NULL(dut_result_phase_at(r, 1));
	/* duplicate and empty phase names are refused */
	CU_ASSERT_PTR_NULL(dut_result_add_phase(r, "run"));
	CU_ASSERT_PTR_NULL(dut_result_add_phase(r, ""));
	CU_ASSERT_PTR_NULL(dut_result_new("", "1"));
	CU_ASSERT_EQUAL(dut_result_phase_count(r), 1);
}

static void test_nonfinite_values_are_refused(void)
{
	_cleanup_(dut_result_freep) struct dut_result *r = dut_result_new("pgload", "0.1.0");
	struct dut_result_phase *ph = dut_result_add_phase(r, "run");
	struct dut_hist_summary s = lat;
	_cleanup_free_ char *text = NULL;
	double v;

	CU_ASSERT_FATAL(ph != NULL);
	CU_ASSERT_EQUAL(dut_phase_set_metric(ph, "tps", NAN, "tx/s"), -EINVAL);
	CU_ASSERT_EQUAL(dut_phase_set_metric(ph, "tps", INFINITY, "tx/s"), -EINVAL);
	CU_ASSERT_EQUAL(dut_phase_get_metric(ph, "tps", &v, NULL), -ENOENT);
	s.mean = NAN;
	CU_ASSERT_EQUAL(dut_phase_set_latency(ph, "txn", &s), -EINVAL);
	s.mean = 1.0;
	s.stddev = -INFINITY;
	CU_ASSERT_EQUAL(dut_phase_set_latency(ph, "txn", &s), -EINVAL);
	CU_ASSERT_EQUAL(dut_phase_get_latency(ph, "txn", &s), -ENOENT);
	/* a tool that puts NaN into a free-form member gets -EINVAL on write */
	CU_ASSERT_EQUAL(dut_result_to_string(r, &text), 0);
	free(TAKE_PTR(text));
	json_object_object_add(dut_phase_extra(ph), "bad", json_object_new_double(NAN));
	CU_ASSERT_EQUAL(dut_result_to_string(r, &text), -EINVAL);
	CU_ASSERT_PTR_NULL(text);
	CU_ASSERT_EQUAL(dut_result_write_file(r, "/nonexistent-dir/never-written.json"), -EINVAL);
}

static int count_entries(const char *dir)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	return n;
}

static void test_files_are_written_atomically_and_read_back(void)
{
	_cleanup_(dut_result_freep) struct dut_result *r = build_full();
	_cleanup_(dut_result_freep) struct dut_result *back = NULL;
	char dir[] = "/tmp/dut-result-test.XXXXXX", path[256];
	struct dut_error err = { { 0 } };
	int ret;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	CU_ASSERT_EQUAL(dut_result_write_file(r, path), 0);
	CU_ASSERT_EQUAL(dut_result_write_file(r, path), 0); /* replaces */
	CU_CHECK(count_entries(dir) == 1, "temporary files left behind: %d entries", count_entries(dir));
	ret = dut_result_read_file(path, &back, &err);
	CU_CHECK(ret == 0, "read back: %s", err.msg);
	if (back)
		check_full(back, "file");
	unlink(path);
	rmdir(dir);

	struct dut_result *none = NULL;
	ret = dut_result_read_file("/nonexistent-dir/x.json", &none, &err);
	CU_ASSERT_EQUAL(ret, -ENOENT);
	CU_CHECK(strstr(err.msg, "/nonexistent-dir/x.json: cannot open: No such file") != NULL,
		 "message \"%s\"", err.msg);
	CU_ASSERT_EQUAL(dut_result_write_file(r, "/nonexistent-dir/x.json"), -ENOENT);
}

static void test_host_probe_is_sane(void)
{
	struct dut_host h;
	char now[32];

	unsetenv("DUT_PROC_ROOT");
	CU_ASSERT_EQUAL_FATAL(dut_host_probe(&h), 0);
	CU_CHECK(h.cpus >= 1, "cpus %u", h.cpus);
	CU_CHECK(h.mem_bytes >= (64ull << 20), "mem_bytes %llu", (unsigned long long)h.mem_bytes);
	CU_CHECK(strncmp(h.kernel, "Linux ", 6) == 0, "kernel \"%s\"", h.kernel);
	CU_CHECK(h.hostname[0] && h.cpu_model[0], "hostname \"%s\" cpu \"%s\"", h.hostname, h.cpu_model);
	CU_ASSERT_EQUAL(dut_host_utc_now(now, sizeof(now)), 0);
	CU_CHECK(strlen(now) == 20 && now[4] == '-' && now[10] == 'T' && now[19] == 'Z', "now \"%s\"", now);
	CU_ASSERT_EQUAL(dut_host_utc_now(now, 20), -ERANGE);
}

static void test_host_probe_reads_other_machines(void)
{
	static const struct {
		const char *dir;
		const char *cpu;
		uint64_t mem;
	} rows[] = {
		{ "proc-x86", "AMD EPYC 7B13", 25165824ull * 1024 },
		{ "proc-arm64", "ARM implementer 0x41 part 0xd0c", 8023268ull * 1024 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_host h;
		int ret;

		setenv("DUT_PROC_ROOT", fixture(rows[i].dir), 1);
		ret = dut_host_probe(&h);
		CU_CHECK(ret == 0, "%s: ret %d", rows[i].dir, ret);
		if (ret)
			continue;
		CU_CHECK(strcmp(h.cpu_model, rows[i].cpu) == 0, "%s: cpu \"%s\"", rows[i].dir, h.cpu_model);
		CU_CHECK(h.mem_bytes == rows[i].mem, "%s: mem %llu", rows[i].dir,
			 (unsigned long long)h.mem_bytes);
	}
	setenv("DUT_PROC_ROOT", "/nonexistent", 1);
	struct dut_host h;
	CU_ASSERT_EQUAL(dut_host_probe(&h), -ENOENT);
	unsetenv("DUT_PROC_ROOT");
}

static const struct cu_test tests[] = {
	{ "round_trip_is_exact", test_round_trip_is_exact },
	{ "deep_plans_are_read", test_deep_plans_are_read },
	{ "fixtures_valid", test_fixtures_valid },
	{ "fixtures_invalid_say_where_and_what", test_fixtures_invalid_say_where_and_what },
	{ "parse_rejects_bad_input", test_parse_rejects_bad_input },
	{ "series_append_and_get", test_series_append_and_get },
	{ "missing_names_are_enoent", test_missing_names_are_enoent },
	{ "nonfinite_values_are_refused", test_nonfinite_values_are_refused },
	{ "files_are_written_atomically_and_read_back", test_files_are_written_atomically_and_read_back },
	{ "host_probe_is_sane", test_host_probe_is_sane },
	{ "host_probe_reads_other_machines", test_host_probe_reads_other_machines },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "result", .tests = tests };
