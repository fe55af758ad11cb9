/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fuse/stats.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

static struct dut_pg_file pg_of(enum dut_pg_class cls, enum dut_pg_fork fork)
{
	struct dut_pg_file pg = { .cls = cls, .fork = fork };

	return pg;
}

static struct json_object *render(struct dutfs_stats *st, const struct dutfs_stats_info *info)
{
	char *json = NULL;
	size_t len = 0;
	struct json_object *o;
	int r = dutfs_stats_render(st, info, &json, &len);

	CU_CHECK(r == 0, "render: %d", r);
	if (r)
		return NULL;
	CU_CHECK(len == strlen(json) && json[len - 1] == '\n', "length and final newline");
	o = json_tokener_parse(json);
	CU_CHECK(o != NULL, "stats.json parses as JSON");
	free(json);
	return o;
}

static int64_t geti(struct json_object *o, const char *const *keys)
{
	for (; *keys; keys++) {
		if (!o || !json_object_object_get_ex(o, *keys, &o))
			return -1;
	}
	return json_object_get_int64(o);
}

#define GET(o, ...) geti(o, (const char *const[]){ __VA_ARGS__, NULL })

static void test_classes_and_files_add_up(void)
{
	struct dutfs_stats *st;
	struct dutfs_stats_thread *t1, *t2;
	struct dutfs_stats_info info = { .now_ns = 3000000000ull, .view = "syscall", .trace_file = 1,
					 .tracing = 1, .trace_written = 7, .trace_dropped = 2,
					 .last_mark = "load" };
	struct dut_pg_file heap = pg_of(DUT_PG_REL, DUT_PG_FORK_MAIN), wal = pg_of(DUT_PG_WAL, DUT_PG_FORK_NONE);
	struct json_object *o, *files, *f;

	CU_CHECK(dutfs_stats_new(1000000000ull, &st) == 0, "new");
	CU_CHECK(dutfs_stats_add_file(st, 1, "base/5/16397", &heap) == 0, "add 1");
	CU_CHECK(dutfs_stats_add_file(st, 2, "pg_wal/000000010000000000000001", &wal) == 0, "add 2");
	CU_CHECK(dutfs_stats_add_file(st, 3, "base/5/PG_VERSION", &wal) == 0, "add 3 (no I/O)");
	CU_CHECK(dutfs_stats_add_file(st, 2, "again", &wal) == -EEXIST, "duplicate id");
	CU_CHECK(dutfs_stats_add_file(st, 0, "zero", &wal) == -ERANGE, "id 0");
	CU_CHECK(dutfs_stats_add_file(st, DUTFS_STATS_MAX_ID + 1, "big", &wal) == -ERANGE, "id too big");
	CU_CHECK(dutfs_stats_thread_get(st, &t1) == 0 && dutfs_stats_thread_get(st, &t2) == 0 && t1 != t2,
		 "two thread blocks");
	/* heap reads: 100 x 8 KiB at 10 us from t1, 100 at 30 us from t2 */
	for (int i = 0; i < 100; i++) {
		dutfs_stats_record(st, t1, 1, DUTFS_STAT_READ, 8192, 10000, 0);
		dutfs_stats_record(st, t2, 1, DUTFS_STAT_READ, 8192, 30000, 0);
	}
	dutfs_stats_record(st, t1, 2, DUTFS_STAT_WRITE, 16384, 5000, 0);
	dutfs_stats_record(st, t2, 2, DUTFS_STAT_SYNC, 0, 2000000, 0);
	dutfs_stats_record(st, t2, 2, DUTFS_STAT_SYNC, 0, 1000, 1);
	dutfs_stats_record(st, t1, 999, DUTFS_STAT_WRITE, 100, 1000, 0);  /* unknown id */
	o = render(st, &info);
	CU_CHECK(GET(o, "schema_version") == 1, "schema_version");
	CU_CHECK(GET(o, "trace", "records_written") == 7 && GET(o, "trace", "records_dropped") == 2,
		 "trace counts");
	CU_CHECK(GET(o, "classes", "rel", "read", "ops") == 200, "rel read ops %lld",
		 (long long)GET(o, "classes", "rel", "read", "ops"));
	CU_CHECK(GET(o, "classes", "rel", "read", "bytes") == 200 * 8192, "rel read bytes");
	/* merged per-thread histograms: median lies in the 10 us half, p90 in the 30 us half */
	CU_CHECK(labs((long)GET(o, "classes", "rel", "read", "lat_ns", "p50") - 10000) < 200, "p50 %lld",
		 (long long)GET(o, "classes", "rel", "read", "lat_ns", "p50"));
	CU_CHECK(labs((long)GET(o, "classes", "rel", "read", "lat_ns", "p90") - 30000) < 500, "p90 %lld",
		 (long long)GET(o, "classes", "rel", "read", "lat_ns", "p90"));
	CU_CHECK(GET(o, "classes", "wal", "sync", "ops") == 2 && GET(o, "classes", "wal", "sync", "errors") == 1,
		 "wal sync ops and errors");
	CU_CHECK(GET(o, "classes", "wal", "sync", "lat_ns", "max") == 2000000, "max is exact");
	CU_CHECK(GET(o, "classes", "other", "write", "ops") == 1, "unknown id counts as other");
	CU_CHECK(GET(o, "classes", "rel", "write", "ops") == -1, "no empty kinds");
	CU_CHECK(json_object_object_get_ex(o, "files", &files) && json_object_array_length(files) == 2,
		 "files with I/O only");
	f = json_object_array_get_idx(files, 0);
	CU_CHECK(GET(f, "id") == 1 && GET(f, "read", "ops") == 200, "file 1 reads");
	CU_CHECK(!strcmp(json_object_get_string(json_object_object_get(f, "path")), "base/5/16397") &&
		 !strcmp(json_object_get_string(json_object_object_get(f, "fork")), "main"), "file 1 names");
	CU_CHECK(labs((long)GET(f, "read", "lat_ns", "p50") - 10000) < 200, "file p50");
	CU_CHECK(!strcmp(json_object_get_string(json_object_object_get(o, "last_mark")), "load"), "last_mark");
	json_object_put(o);
	/* a thread block given back keeps its counts and is reused */
	dutfs_stats_thread_put(t2);
	CU_CHECK(dutfs_stats_thread_get(st, &t2) == 0, "get again");
	dutfs_stats_record(st, t2, 1, DUTFS_STAT_READ, 8192, 10000, 0);
	info.last_mark = NULL;
	o = render(st, &info);
	CU_CHECK(GET(o, "classes", "rel", "read", "ops") == 201, "counts survive a put/get");
	CU_CHECK(json_object_object_get_ex(o, "last_mark", NULL) &&
		 json_object_object_get(o, "last_mark") == NULL, "last_mark is null without a mark");
	json_object_put(o);
	dutfs_stats_free(st);
}

struct worker {
	struct dutfs_stats *st;
	int n;
};

static void *work(void *p)
{
	struct worker *w = p;
	struct dutfs_stats_thread *t;

	if (dutfs_stats_thread_get(w->st, &t))
		return NULL;
	for (int i = 0; i < w->n; i++)
		dutfs_stats_record(w->st, t, 1 + (uint32_t)(i % 3), DUTFS_STAT_WRITE, 8192, 1000 + (uint64_t)i, 0);
	dutfs_stats_thread_put(t);
	return NULL;
}

static void test_concurrent_writers_count_exactly(void)
{
	struct dutfs_stats *st;
	struct dut_pg_file heap = pg_of(DUT_PG_REL, DUT_PG_FORK_MAIN);
	struct dutfs_stats_info info = { .view = "device" };
	struct worker w;
	pthread_t th[4];
	struct json_object *o, *files;
	int64_t sum = 0;

	CU_CHECK(dutfs_stats_new(0, &st) == 0, "new");
	for (uint32_t id = 1; id <= 3; id++)
		dutfs_stats_add_file(st, id, "base/1/1", &heap);
	w.st = st;
	w.n = 30000;
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, work, &w);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	o = render(st, &info);
	CU_CHECK(GET(o, "classes", "rel", "write", "ops") == 4 * 30000, "class ops");
	json_object_object_get_ex(o, "files", &files);
	for (size_t i = 0; i < json_object_array_length(files); i++)
		sum += GET(json_object_array_get_idx(files, i), "write", "ops");
	CU_CHECK(sum == 4 * 30000, "per-file ops add up: %lld", (long long)sum);
	json_object_put(o);
	dutfs_stats_free(st);
}

static void test_request_counters(void)
{
	static const char *const names[] = { "lookup", "getattr", "read" };
	static const uint64_t counts[] = { 3, 0, 1ull << 40 };
	static const struct {
		const char *what;
		size_t nreq;
	} rows[] = { { "three kinds", 3 }, { "none: no requests object", 0 } };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_stats *st;
		struct dutfs_stats_info info = { .now_ns = 1, .view = "device", .req_names = names,
						 .req_counts = counts, .nreq = rows[i].nreq };
		struct json_object *o, *rq;

		CU_CHECK(dutfs_stats_new(0, &st) == 0, "%s: new", rows[i].what);
		o = render(st, &info);
		if (rows[i].nreq == 0) {
			CU_CHECK(o && !json_object_object_get_ex(o, "requests", &rq), "%s", rows[i].what);
		} else {
			CU_CHECK(GET(o, "requests", "lookup") == 3, "%s: lookup", rows[i].what);
			CU_CHECK(GET(o, "requests", "getattr") == 0, "%s: getattr", rows[i].what);
			CU_CHECK(GET(o, "requests", "read") == (int64_t)(1ull << 40), "%s: read", rows[i].what);
		}
		json_object_put(o);
		dutfs_stats_free(st);
	}
}

static const struct cu_test tests[] = {
	{ "classes_and_files_add_up", test_classes_and_files_add_up },
	{ "concurrent_writers_count_exactly", test_concurrent_writers_count_exactly },
	{ "request_counters", test_request_counters },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dutfs-stats", .tests = tests };
