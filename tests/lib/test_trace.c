/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_writer_priv.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)

static char tmpdir[256];

static int suite_init(void)
{
	return cu_tmpdir_make(tmpdir, sizeof(tmpdir), "trace");
}

static int suite_cleanup(void)
{
	return cu_tmpdir_remove(tmpdir);
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* The whole file (lib/file_io), or NULL. */
static uint8_t *slurp(const char *path, size_t *ret_len)
{
	char *b = NULL;

	return dut_read_small_file(path, SIZE_MAX, &b, ret_len) == 0 ? (uint8_t *)b : NULL;
}

/* ---- encoding ---- */

static void test_rec_encode_decode_round_trip(void)
{
	static const struct dut_trace_rec rows[] = {
		{ 0 },
		{ 1, 8192, 150000, 8192, 8192, 7, 4242, DUT_OP_READ, DUT_TRACE_F_DIRECT, 0 },
		{ UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 2, UINT32_MAX, -ENOSPC, UINT32_MAX,
		  UINT32_MAX, UINT16_MAX, UINT16_MAX, UINT32_MAX },
		{ 123456789012345ull, 1ull << 40, 3, 1, -EIO, 0, 1, DUT_OP_FAULT, DUT_TRACE_F_FAULT, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint8_t buf[DUT_TRACE_REC_SIZE];
		struct dut_trace_rec back;

		memset(buf, 0xa5, sizeof(buf));
		dut_trace_rec_encode(&rows[i], buf);
		memset(&back, 0x5a, sizeof(back));
		dut_trace_rec_decode(buf, &back);
		CU_CHECK(memcmp(&back, &rows[i], sizeof(back)) == 0, "row %zu: round trip differs", i);
	}
}

static void test_rec_layout_is_little_endian_in_order(void)
{
	struct dut_trace_rec r = { .ts_ns = 0x0102030405060708ull, .offset = 0x1112131415161718ull,
				   .lat_ns = 0x21, .len = 0x31323334, .result = -2, .file_id = 0x41,
				   .pid = 0x51, .op = 0x6162, .flags = 0x7172, .dutfs_ns = 0x81828384 };
	uint8_t b[DUT_TRACE_REC_SIZE];

	dut_trace_rec_encode(&r, b);
	CU_ASSERT_EQUAL(b[0], 0x08);
	CU_ASSERT_EQUAL(b[7], 0x01);
	CU_ASSERT_EQUAL(b[8], 0x18);
	CU_ASSERT_EQUAL(b[16], 0x21);
	CU_ASSERT_EQUAL(b[24], 0x34);
	CU_ASSERT_EQUAL(b[28], 0xfe);
	CU_ASSERT_EQUAL(b[31], 0xff);
	CU_ASSERT_EQUAL(b[32], 0x41);
	CU_ASSERT_EQUAL(b[36], 0x51);
	CU_ASSERT_EQUAL(b[40], 0x62);
	CU_ASSERT_EQUAL(b[42], 0x72);
	CU_ASSERT_EQUAL(b[44], 0x84); /* dutfs_ns, the 1.0 reserved word */
	CU_ASSERT_EQUAL(b[47], 0x81);
}

/* dutfs_ns = (reply - arrival) - lat_ns, saturating, never the "not recorded" 0. */
static void test_dutfs_ns_from_times(void)
{
	static const struct {
		const char *what;
		uint64_t arrival, reply, lat;
		uint32_t want;
	} rows[] = {
		{ "ordinary", 1000, 31000, 20000, 10000 },
		{ "shaped: the delay is in lat_ns", 5000000, 7012000, 2000000, 12000 },
		{ "nothing beyond lat_ns: measured, so 1", 100, 200, 100, 1 },
		{ "lat_ns longer than the request (clock jitter): 1", 100, 200, 500, 1 },
		{ "reply before arrival: 1", 500, 100, 0, 1 },
		{ "exactly the largest value", 0, UINT32_MAX, 0, UINT32_MAX },
		{ "saturates", 0, 10ull * 1000000000, 0, DUT_TRACE_DUTFS_NS_MAX },
		{ "huge times", UINT64_MAX - 10, UINT64_MAX, 4, 6 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint32_t got = dut_trace_dutfs_ns(rows[i].arrival, rows[i].reply, rows[i].lat);

		CU_CHECK(got == rows[i].want, "%s: %u, want %u", rows[i].what, got, rows[i].want);
	}
}

static void test_op_names_round_trip(void)
{
	for (unsigned op = DUT_OP_READ; op < DUT_OP_COUNT; op++) {
		enum dut_trace_op back = 0;
		const char *n = dut_trace_op_name(op);

		CU_CHECK(strcmp(n, "unknown") != 0, "op %u has no name", op);
		CU_CHECK(dut_trace_op_from_name(n, &back) == 0 && back == op, "op %u \"%s\"", op, n);
	}
	CU_ASSERT_STRING_EQUAL(dut_trace_op_name(0), "unknown");
	CU_ASSERT_STRING_EQUAL(dut_trace_op_name(DUT_OP_COUNT), "unknown");
	enum dut_trace_op o = 0;
	CU_ASSERT_EQUAL(dut_trace_op_from_name("unknown", &o), -EINVAL);
	CU_ASSERT_EQUAL(dut_trace_op_from_name("READ", &o), -EINVAL);
	CU_ASSERT_EQUAL(dut_trace_op_from_name(NULL, &o), -EINVAL);
}

/* ---- writer -> reader ---- */

#define NTHREADS 4
#define PER_THREAD 5000

struct emitter {
	struct dut_trace_writer *w;
	uint32_t tid;
	unsigned n;
};

static void *emit_thread(void *arg)
{
	struct emitter *e = arg;

	for (unsigned i = 0; i < e->n; i++) {
		struct dut_trace_rec r = {
			.ts_ns = 1000 + (uint64_t)i * NTHREADS + e->tid,
			.offset = (uint64_t)i * 8192, .lat_ns = i, .len = 8192, .result = 8192,
			.file_id = e->tid, .pid = 100 + e->tid,
			.op = i % 2 ? DUT_OP_WRITE : DUT_OP_READ, .dutfs_ns = 7 * i + 1,
		};

		dut_trace_emit(e->w, &r);
	}
	return NULL;
}

/* Check every (pid, offset) appears exactly once and nothing else does. */
static void check_all_once(const struct dut_trace *t, unsigned nthreads, unsigned per)
{
	_cleanup_free_ uint8_t *seen = calloc((size_t)nthreads * per, 1);
	size_t bad = 0;

	CU_ASSERT_FATAL(seen != NULL);
	CU_CHECK(t->nrecs == (size_t)nthreads * per, "%zu records, want %u", t->nrecs, nthreads * per);
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];
		uint32_t tid = r->pid - 100;
		uint64_t k = r->offset / 8192;

		if (tid >= nthreads || k >= per || r->file_id != tid || r->dutfs_ns != 7 * k + 1 ||
		    seen[tid * per + k]++) {
			bad++;
			continue;
		}
		if (i > 0 && t->recs[i - 1].ts_ns > r->ts_ns)
			bad++;
	}
	CU_CHECK(bad == 0, "%zu records duplicated, unknown, out of ts order or with a wrong dutfs_ns", bad);
}

/* fixed: 1.1's 48-byte RECORDS frames (opts.fixed_records), else 2.0's CRECORDS */
static void writer_threads_round_trip(bool fixed)
{
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	struct emitter e[NTHREADS];
	pthread_t th[NTHREADS];

	tmp_path(path, sizeof(path), "threads.dtr");
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.flags = DUT_TRACE_HDR_SYSCALL_VIEW, .flush_interval_ns = 2000000,
		.fixed_records = fixed }, &w), 0);
	for (uint32_t i = 0; i < NTHREADS; i++) {
		char p[32];

		snprintf(p, sizeof(p), "base/5/%u", 16384 + i);
		CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, i, p, &(struct dut_pg_file){
			.cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
			.tablespace_oid = 1663, .relfilenode = 16384 + i }), 0);
	}
	CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, 0, "base/5/99999", NULL), 0); /* id 0 again: last wins */
	CU_ASSERT_EQUAL(dut_trace_writer_mark(w, 500, "load"), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_info(w, "view", "syscall"), 0);
	for (uint32_t i = 0; i < NTHREADS; i++) {
		e[i] = (struct emitter){ w, i, PER_THREAD };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, emit_thread, &e[i]), 0);
	}
	CU_ASSERT_EQUAL(dut_trace_writer_mark(w, 100, "early"), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(dut_trace_writer_mark(w, 500, "run"), 0); /* same ts as "load": keeps order */
	CU_ASSERT_EQUAL(dut_trace_writer_info(w, "backing", "/srv/x"), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);

	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_ASSERT_EQUAL(t->hdr.version_major, fixed ? 1 : DUT_TRACE_VERSION_MAJOR);
	CU_ASSERT_EQUAL(t->hdr.version_minor, fixed ? 1 : DUT_TRACE_VERSION_MINOR);
	CU_ASSERT_EQUAL(t->hdr.flags, DUT_TRACE_HDR_SYSCALL_VIEW);
	CU_ASSERT(t->hdr.start_realtime_ns > 0);
	CU_ASSERT(t->has_footer);
	CU_ASSERT(!t->truncated);
	CU_ASSERT_EQUAL(t->footer.records_written, NTHREADS * PER_THREAD);
	CU_ASSERT_EQUAL(t->footer.records_dropped, 0);
	check_all_once(t, NTHREADS, PER_THREAD);

	CU_ASSERT_EQUAL_FATAL(t->nfiles, NTHREADS);
	for (uint32_t i = 0; i < NTHREADS; i++)
		CU_CHECK(t->files[i].id == i, "files[%u].id = %u", i, t->files[i].id);
	CU_ASSERT_STRING_EQUAL(dut_trace_file_by_id(t, 0)->path, "base/5/99999");
	CU_ASSERT_EQUAL(dut_trace_file_by_id(t, 0)->pg.cls, DUT_PG_OTHER);
	CU_ASSERT_STRING_EQUAL(dut_trace_file_by_id(t, 2)->path, "base/5/16386");
	CU_ASSERT_EQUAL(dut_trace_file_by_id(t, 2)->pg.relfilenode, 16386);
	CU_ASSERT_EQUAL(dut_trace_file_by_id(t, 2)->pg.tablespace_oid, 1663);
	CU_ASSERT_EQUAL(dut_trace_file_by_id(t, 2)->pg.fork, DUT_PG_FORK_MAIN);
	CU_ASSERT_PTR_NULL(dut_trace_file_by_id(t, NTHREADS));

	CU_ASSERT_EQUAL_FATAL(t->nmarkers, 3);
	CU_ASSERT_STRING_EQUAL(t->markers[0].label, "early");
	CU_ASSERT_STRING_EQUAL(t->markers[1].label, "load");
	CU_ASSERT_STRING_EQUAL(t->markers[2].label, "run");
	CU_ASSERT_STRING_EQUAL(t->info, "view=syscall\nbacking=/srv/x\n");
}

static void test_writer_threads_round_trip(void)
{
	writer_threads_round_trip(false);
}

static void test_writer_threads_round_trip_fixed(void)
{
	writer_threads_round_trip(true);
}

/* Threads that come and go (FUSE idle workers): their buffers are still drained. */
static void test_writer_drains_exited_threads(void)
{
	enum { WAVES = 12, PER = 700 };
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	struct emitter e[WAVES];

	tmp_path(path, sizeof(path), "waves.dtr");
	/* A long flush interval: the exited threads' rings are drained by close at the latest. */
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 1024, .flush_interval_ns = 3000000 }, &w), 0);
	for (uint32_t i = 0; i < WAVES; i++) {
		pthread_t th;

		e[i] = (struct emitter){ w, i, PER };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, emit_thread, &e[i]), 0);
		pthread_join(th, NULL);
		if (i == WAVES / 2)
			usleep(20000); /* let the writer free some orphaned rings mid-way */
	}
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	check_all_once(t, WAVES, PER);
	CU_ASSERT_EQUAL(t->footer.records_written, WAVES * PER);
	CU_ASSERT_EQUAL(t->footer.records_dropped, 0);
}

/* A tiny ring overflows: every record is either in the file or counted as dropped. */
static void test_writer_full_ring_counts_drops_exactly(void)
{
	enum { N = 200000 };
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };

	tmp_path(path, sizeof(path), "full-ring.dtr");
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 8, .flush_interval_ns = 1000000000 }, &w), 0);
	for (unsigned i = 0; i < N; i++)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = i, .op = DUT_OP_WRITE, .len = 1 });
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_CHECK(t->footer.records_written + t->footer.records_dropped == N,
		 "written %llu + dropped %llu != %u", (unsigned long long)t->footer.records_written,
		 (unsigned long long)t->footer.records_dropped, N);
	CU_ASSERT_EQUAL(t->nrecs, t->footer.records_written);
}

/*
 * close_counts gives the footer's totals, including the records of the last
 * flush (a long flush interval: they are all written by close), and the
 * drops of a full ring; NULL pointers are allowed.
 */
static void test_writer_close_counts_match_footer(void)
{
	static const struct { const char *name; size_t ring; unsigned n; int null_ptrs; } rows[] = {
		{ "all in the last flush", 4096, 1000, 0 },
		{ "full ring drops", 8, 5000, 0 },
		{ "NULL pointers", 64, 10, 1 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[300];
		struct dut_trace_writer *w = NULL;
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error err = { { 0 } };
		uint64_t written = 77, dropped = 77;

		tmp_path(path, sizeof(path), "close-counts.dtr");
		CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
			.thread_buf_recs = rows[i].ring, .flush_interval_ns = 10000000000ull }, &w), 0);
		for (unsigned k = 0; k < rows[i].n; k++)
			dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = k, .op = DUT_OP_READ, .len = 8192 });
		if (rows[i].null_ptrs) {
			CU_CHECK(dut_trace_writer_close_counts(w, NULL, NULL) == 0, "%s: close", rows[i].name);
		} else {
			CU_CHECK(dut_trace_writer_close_counts(w, &written, &dropped) == 0, "%s: close",
				 rows[i].name);
		}
		CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
		CU_CHECK(t->has_footer, "%s: no footer", rows[i].name);
		CU_CHECK(t->footer.records_written + t->footer.records_dropped == rows[i].n,
			 "%s: footer %llu + %llu != %u", rows[i].name,
			 (unsigned long long)t->footer.records_written,
			 (unsigned long long)t->footer.records_dropped, rows[i].n);
		if (rows[i].null_ptrs)
			continue;
		CU_CHECK(written == t->footer.records_written && dropped == t->footer.records_dropped,
			 "%s: close_counts %llu/%llu, footer %llu/%llu", rows[i].name,
			 (unsigned long long)written, (unsigned long long)dropped,
			 (unsigned long long)t->footer.records_written,
			 (unsigned long long)t->footer.records_dropped);
		CU_CHECK(written == t->nrecs, "%s: %llu written, %zu in the file", rows[i].name,
			 (unsigned long long)written, t->nrecs);
		/* a ring that holds every record drops none (a tiny one may or may not) */
		CU_CHECK(rows[i].ring < rows[i].n || dropped == 0, "%s: dropped %llu", rows[i].name,
			 (unsigned long long)dropped);
	}
}

/* /dev/full: every write fails with ENOSPC; nothing is lost silently. */
static void test_writer_to_full_device_counts_drops(void)
{
	struct dut_trace_writer *w = NULL;
	uint64_t written = 99, dropped = 99;

	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open("/dev/full", NULL, &w), 0);
	for (unsigned i = 0; i < 1000; i++)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = i, .op = DUT_OP_READ });
	CU_ASSERT_EQUAL(dut_trace_writer_mark(w, 1, "lost"), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), -ENOSPC);

	/* counts() while open, after a flush round */
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open("/dev/full", &(struct dut_trace_writer_opts){
		.flush_interval_ns = 1000000 }, &w), 0);
	for (unsigned i = 0; i < 300; i++)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = i, .op = DUT_OP_READ });
	for (int i = 0; i < 2000 && dropped != 300; i++) {
		usleep(1000);
		dut_trace_writer_counts(w, &written, &dropped);
	}
	CU_ASSERT_EQUAL(written, 0);
	CU_ASSERT_EQUAL(dropped, 300);
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), -ENOSPC);
}

static void test_writer_open_unwritable_location_fails(void)
{
	struct dut_trace_writer *w = NULL;
	char path[300];

	tmp_path(path, sizeof(path), "no/such/dir/t.dtr");
	CU_ASSERT_EQUAL(dut_trace_writer_open(path, NULL, &w), -ENOENT);
	CU_ASSERT_PTR_NULL(w);
	CU_ASSERT_EQUAL(dut_trace_writer_open("", NULL, &w), -EINVAL);
	CU_ASSERT_EQUAL(dut_trace_writer_open(tmpdir, NULL, &w), -EISDIR);
}

/*
 * The file system fills up mid-trace (RLIMIT_FSIZE stands in for ENOSPC):
 * the trace keeps whole frames only, and written + dropped is exact.
 */
static void test_writer_disk_full_midway_keeps_whole_frames(void)
{
	enum { N = 60000 };
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	struct rlimit old, lim;
	uint64_t written, dropped;
	int r;

	tmp_path(path, sizeof(path), "fsize.dtr");
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 1 << 18; /* room for ~29000 of these records (9 bytes each, compact) */
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 4096, .flush_interval_ns = 1000000 }, &w), 0);
	for (unsigned i = 0; i < N; i++) {
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = i, .op = DUT_OP_WRITE, .len = i });
		if (i % 1024 == 0)
			usleep(200); /* small batches, so some fit and some do not */
	}
	dut_trace_writer_counts(w, &written, &dropped);
	r = dut_trace_writer_close(w);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	CU_ASSERT_EQUAL(r, -EFBIG);

	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_CHECK(!t->truncated, "partial frame left in the file: %s", err.msg);
	CU_CHECK(t->nrecs > 0 && t->nrecs < N, "%zu records", t->nrecs);
	CU_CHECK(t->valid_bytes <= (1u << 18), "valid_bytes %llu", (unsigned long long)t->valid_bytes);
	/* The footer did not fit either; the file's records are exactly the written ones. */
	if (t->has_footer)
		CU_ASSERT_EQUAL(t->footer.records_written + t->footer.records_dropped, N);
	CU_ASSERT(written <= t->nrecs);
	CU_ASSERT(dropped > 0);
}

/* ---- reader: truncation and corruption ---- */

/* A small trace with several frames of each kind, written by the real writer. */
static uint8_t *small_trace(size_t *ret_len)
{
	char path[300];
	struct dut_trace_writer *w = NULL;
	pthread_t th[2];
	struct emitter e[2];

	tmp_path(path, sizeof(path), "small.dtr");
	if (dut_trace_writer_open(path, NULL, &w) < 0)
		return NULL;
	dut_trace_writer_info(w, "view", "device");
	dut_trace_writer_add_file(w, 0, "base/5/16384", NULL);
	dut_trace_writer_mark(w, 7, "phase one");
	for (int i = 0; i < 2; i++) {
		e[i] = (struct emitter){ w, (uint32_t)i, 3 + (unsigned)i };
		pthread_create(&th[i], NULL, emit_thread, &e[i]);
		pthread_join(th[i], NULL);
	}
	dut_trace_writer_add_file(w, 1, "pg_wal/000000010000000000000001", NULL);
	dut_trace_writer_mark(w, 9, "phase two");
	if (dut_trace_writer_close(w) < 0)
		return NULL;
	return slurp(path, ret_len);
}

/* Independent frame walk: boundaries and the records before each. */
static size_t frame_walk(const uint8_t *b, size_t len, size_t *bounds, size_t *recs_before, size_t max)
{
	size_t off = DUT_TRACE_HEADER_SIZE, n = 0, recs = 0;

	while (off < len && n < max) {
		uint32_t type = dut_le32_get(b + off), plen = dut_le32_get(b + off + 4);

		bounds[n] = off;
		recs_before[n++] = recs;
		if (type == DUT_TRACE_FRAME_RECORDS)
			recs += plen / DUT_TRACE_REC_SIZE;
		else if (type == DUT_TRACE_FRAME_CRECORDS)
			recs += dut_le32_get(b + off + 8);
		off += 8 + ((plen + 7u) & ~7u);
	}
	bounds[n] = off;
	recs_before[n++] = recs;
	return n;
}

static void test_reader_truncated_at_every_offset(void)
{
	size_t len = 0, bounds[64], recs_before[64], nb, fails = 0;
	_cleanup_free_ uint8_t *full = small_trace(&len);

	CU_ASSERT_FATAL(full != NULL);
	nb = frame_walk(full, len, bounds, recs_before, 63);
	CU_ASSERT_EQUAL_FATAL(bounds[nb - 1], len);
	CU_CHECK(nb >= 8, "only %zu frames", nb - 1);

	for (size_t cut = 0; cut <= len; cut++) {
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		_cleanup_free_ uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
		struct dut_error err = { { 0 } };
		size_t k = 0;
		int r;

		memcpy(copy, full, cut);
		r = dut_trace_parse(copy, cut, &t, &err);
		if (cut < DUT_TRACE_HEADER_SIZE) {
			if (r != -EBADMSG || !strstr(err.msg, "header"))
				fails++, cu_fail("cut %zu: ret %d (%s)", cut, r, err.msg);
			continue;
		}
		while (k + 1 < nb && bounds[k + 1] <= cut)
			k++;
		bool at_boundary = bounds[k] == cut || cut == DUT_TRACE_HEADER_SIZE;
		size_t want_valid = cut == DUT_TRACE_HEADER_SIZE ? cut : bounds[k];
		size_t want_recs = cut == DUT_TRACE_HEADER_SIZE ? 0 : recs_before[k];

		if (r != 0 || t->truncated == at_boundary || t->valid_bytes != want_valid ||
		    t->nrecs != want_recs || t->has_footer != (cut == len) ||
		    (!at_boundary && !strstr(err.msg, "truncated"))) {
			fails++;
			cu_fail("cut %zu: ret %d truncated %d valid %llu (want %zu) recs %zu (want %zu) footer %d: %s",
				cut, r, r ? -1 : t->truncated, r ? 0ull : (unsigned long long)t->valid_bytes,
				want_valid, r ? 0 : t->nrecs, want_recs, r ? -1 : t->has_footer, err.msg);
		}
		if (fails > 5)
			break;
	}
	CU_ASSERT_EQUAL(fails, 0);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	dut_le32_put(b + off, v);
}

static void test_reader_rejects_corrupt_input(void)
{
	size_t len = 0, bounds[64], recs_before[64], nb;
	_cleanup_free_ uint8_t *full = small_trace(&len);
	size_t first = DUT_TRACE_HEADER_SIZE; /* first frame (INFO) */
	struct {
		const char *name;
		size_t off;      /* where to patch */
		int width;       /* 1 = byte, 4 = u32, 0 = cut file at off */
		uint32_t val;
		int ret;
		const char *msg; /* substring of the error */
	} rows[] = {
		{ "bad magic", 0, 1, 'X', -EBADMSG, "not a dutfs trace" },
		{ "major 3", 8, 1, 3, -EBADMSG, "version 3." },
		{ "major 0", 8, 1, 0, -EBADMSG, "version 0." },
		{ "header size 8", 32, 4, 8, -EBADMSG, "header size 8" },
		{ "header size odd", 32, 4, 65, -EBADMSG, "header size 65" },
		{ "header larger than file", 32, 4, 65528, -EBADMSG, "ends inside" },
		{ "record size 47", 36, 4, 47, -EBADMSG, "record size 47" },
		{ "record size 0", 36, 4, 0, -EBADMSG, "record size 0" },
		{ "empty file", 0, 0, 0, -EBADMSG, "header" },
		{ "5 bytes of magic", 5, 0, 0, -EBADMSG, "ends inside" },
		{ "frame type 0", first, 4, 0, -EBADMSG, "frame type 0" },
		{ "absurd length", first + 4, 4, 0x7fffffff, -EBADMSG, "corrupt trace at byte 64" },
		{ "unknown type is skipped", first, 4, 77, 0, "" },
	};

	CU_ASSERT_FATAL(full != NULL);
	nb = frame_walk(full, len, bounds, recs_before, 63);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		_cleanup_free_ uint8_t *b = malloc(len);
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error err = { { 0 } };
		size_t blen = len;
		int r;

		memcpy(b, full, len);
		if (rows[i].width == 1)
			b[rows[i].off] = (uint8_t)rows[i].val;
		else if (rows[i].width == 4)
			put32(b, rows[i].off, rows[i].val);
		else
			blen = rows[i].off;
		r = dut_trace_parse(b, blen, &t, &err);
		CU_CHECK(r == rows[i].ret, "%s: ret %d want %d (%s)", rows[i].name, r, rows[i].ret, err.msg);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "%s: message \"%s\" lacks \"%s\"",
			 rows[i].name, err.msg, rows[i].msg);
		if (r == 0)
			CU_CHECK(t->info == NULL && t->nrecs == recs_before[nb - 1], "%s: info %s, %zu recs",
				 rows[i].name, t->info ? t->info : "(null)", t->nrecs);
	}

	/* Frame-level corruption: find frames by type and damage them. */
	for (size_t k = 0; k + 1 < nb; k++) {
		_cleanup_free_ uint8_t *b = malloc(len);
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error err = { { 0 } };
		size_t off = bounds[k];
		uint32_t type = dut_le32_get(full + off), plen = dut_le32_get(full + off + 4);

		memcpy(b, full, len);
		if (type == DUT_TRACE_FRAME_RECORDS && plen >= 2 * DUT_TRACE_REC_SIZE)
			put32(b, off + 4, plen - 8);   /* no longer whole records */
		else if (type == DUT_TRACE_FRAME_CRECORDS)
			put32(b, off + 4, plen - 1);   /* the last record is cut */
		else if (type == DUT_TRACE_FRAME_FILE)
			put32(b, off + 12, plen);     /* inner path length disagrees */
		else if (type == DUT_TRACE_FRAME_MARKER)
			put32(b, off + 16, 0);        /* empty label */
		else
			continue;
		CU_CHECK(dut_trace_parse(b, len, &t, &err) == -EBADMSG, "frame %zu type %u: not rejected", k, type);
		CU_CHECK(strstr(err.msg, "malformed") != NULL, "frame %zu: message %s", k, err.msg);
	}
}

static void test_reader_zero_tail_and_frame_after_footer(void)
{
	size_t len = 0;
	_cleanup_free_ uint8_t *full = small_trace(&len);
	_cleanup_free_ uint8_t *b = NULL;
	struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };

	CU_ASSERT_FATAL(full != NULL);
	b = calloc(1, len + 4096);
	memcpy(b, full, len);
	/* A crash left 4 KiB of zeroes after the footer: truncation, not corruption. */
	CU_ASSERT_EQUAL(dut_trace_parse(b, len + 4096, &t, &err), 0);
	CU_ASSERT(t && t->truncated && t->valid_bytes == len && t->has_footer);
	CU_ASSERT(strstr(err.msg, "zeroes") != NULL);
	dut_trace_free(t);
	t = NULL;
	/* A real frame after the footer is corruption. */
	memcpy(b + len, full + DUT_TRACE_HEADER_SIZE, 64);
	CU_ASSERT_EQUAL(dut_trace_parse(b, len + 64, &t, &err), -EBADMSG);
	CU_ASSERT(strstr(err.msg, "after the footer") != NULL);
	CU_ASSERT_PTR_NULL(t);
}

static void test_load_reports_missing_file(void)
{
	struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };

	CU_ASSERT_EQUAL(dut_trace_load("/nonexistent/trace.dtr", &t, &err), -ENOENT);
	CU_ASSERT(strstr(err.msg, "/nonexistent/trace.dtr") != NULL);
	CU_ASSERT_EQUAL(dut_trace_load(tmpdir, &t, &err), -EINVAL);
}

/* tests/lib/fixtures/trace/v1.0-mktrace.dtr: written by the 1.0 writer (README.md there). */
static uint8_t *v10_fixture(size_t *ret_len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/lib/fixtures/trace/v1.0-mktrace.dtr", cu_source_root());
	return slurp(path, ret_len);
}

static void test_reader_reads_v1_0_trace(void)
{
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	unsigned ops[DUT_OP_COUNT] = { 0 }, with_dutfs = 0;
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/lib/fixtures/trace/v1.0-mktrace.dtr", cu_source_root());
	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_ASSERT_EQUAL(t->hdr.version_major, 1);
	CU_ASSERT_EQUAL(t->hdr.version_minor, 0);
	CU_ASSERT(t->has_footer);
	CU_ASSERT_EQUAL(t->footer.records_written, 20);
	CU_ASSERT_EQUAL_FATAL(t->nrecs, 20);
	for (size_t i = 0; i < t->nrecs; i++) {
		ops[t->recs[i].op < DUT_OP_COUNT ? t->recs[i].op : 0]++;
		with_dutfs += t->recs[i].dutfs_ns != 0;
	}
	CU_ASSERT_EQUAL(ops[DUT_OP_READ], 8);
	CU_ASSERT_EQUAL(ops[DUT_OP_WRITE], 10);
	CU_ASSERT_EQUAL(ops[DUT_OP_FDATASYNC], 2);
	CU_ASSERT_EQUAL(with_dutfs, 0);
	CU_ASSERT_EQUAL(t->recs[0].lat_ns, 10000);
	CU_ASSERT_EQUAL(t->nfiles, 2);
	CU_ASSERT_EQUAL(t->nmarkers, 2);
}

/* What a 1.0 writer left in the reserved word is not a measurement; from 1.1 on it is. */
static void test_reader_dutfs_ns_only_from_1_1(void)
{
	static const struct {
		uint16_t minor;
		uint32_t want;
	} rows[] = { { 0, 0 }, { 1, 0x01020304 }, { 7, 0x01020304 } };
	size_t len = 0;
	_cleanup_free_ uint8_t *img = v10_fixture(&len);
	size_t rec = 0;

	CU_ASSERT_FATAL(img != NULL);
	/* the first RECORDS frame */
	for (size_t off = DUT_TRACE_HEADER_SIZE; off + 8 <= len;) {
		uint32_t type = dut_le32_get(img + off), plen = dut_le32_get(img + off + 4);

		if (type == DUT_TRACE_FRAME_RECORDS) {
			rec = off + 8;
			break;
		}
		off += 8 + ((plen + 7u) & ~7u);
	}
	CU_ASSERT_FATAL(rec != 0);
	dut_le32_put(img + rec + 44, 0x01020304);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error err = { { 0 } };
		size_t n = 0;

		dut_le16_put(img + 10, rows[i].minor);
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse(img, len, &t, &err), 0);
		for (size_t k = 0; k < t->nrecs; k++)
			n += t->recs[k].dutfs_ns == rows[i].want && t->recs[k].ts_ns == dut_le64_get(img + rec);
		CU_CHECK(n == 1, "minor %u: %zu records with dutfs_ns %#x", rows[i].minor, n, rows[i].want);
	}
}

/*
 * A thread's ring wakes the writer when an eighth of it is in use, long
 * before the flush interval: of 3/16 of a 4096-record ring emitted with a
 * 10 s interval, at least the eighth is written within 3 s.  Not all 3/16:
 * the writer may drain the first eighth while the rest is still being
 * emitted, and that rest, under an eighth, waits for the interval.  (Woken
 * at half, as before, those records waited for the interval, and a ring
 * filling at 1.35M records/s had 6 ms left for the writer to be scheduled.)
 */
static void test_writer_woken_at_an_eighth_of_the_ring(void)
{
	enum { RING = 4096, N = RING * 3 / 16 };
	char path[300];
	struct dut_trace_writer *w = NULL;
	uint64_t written = 0, dropped = 0;

	tmp_path(path, sizeof(path), "eighth.dtr");
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = RING, .flush_interval_ns = 10000000000ull }, &w), 0);
	for (unsigned i = 0; i < N; i++)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = i, .op = DUT_OP_READ, .len = 8192 });
	for (int ms = 0; ms < 3000 && written < RING / 8; ms += 10) {
		usleep(10000);
		dut_trace_writer_counts(w, &written, &dropped);
	}
	CU_CHECK(written >= RING / 8 && written <= N && dropped == 0,
		 "%llu of %u written within 3 s (at least %u expected), %llu dropped",
		 (unsigned long long)written, N, RING / 8, (unsigned long long)dropped);
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);
}


/*
 * Through the writer: a thread's ring of 8 may grow to 2^17, more than the
 * thread emits, so nothing is dropped however late the writer thread runs,
 * and the trace holds every record once.
 */
static void test_writer_growing_ring_drops_none(void)
{
	enum { N = 100000 };
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	struct emitter e = { NULL, 0, N };
	pthread_t th;

	tmp_path(path, sizeof(path), "grow.dtr");
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 8, .thread_buf_max_recs = 1u << 17,
		.flush_interval_ns = 1000000000 }, &w), 0);
	e.w = w;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, emit_thread, &e), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_load(path, &t, &err), 0);
	CU_ASSERT_EQUAL(t->footer.records_dropped, 0);
	CU_ASSERT_EQUAL(t->footer.records_written, N);
	check_all_once(t, 1, N);
}

static void test_writer_rejects_bad_ring_cap(void)
{
	static const struct { const char *name; size_t recs, max_recs; int ret; } rows[] = {
		{ "cap below the start", 1024, 512, -EINVAL },
		{ "cap below the default start", 0, 1024, -EINVAL },
		{ "cap over 2^24", 1024, (1u << 24) + 1, -EINVAL },
		{ "cap equal to the start", 1024, 1024, 0 },
		{ "cap rounded up to a power of two", 1000, 3000, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[300];
		struct dut_trace_writer *w = NULL;
		int r;

		tmp_path(path, sizeof(path), "cap.dtr");
		r = dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
			.thread_buf_recs = rows[i].recs, .thread_buf_max_recs = rows[i].max_recs }, &w);
		CU_CHECK(r == rows[i].ret, "%s: %d", rows[i].name, r);
		if (r == 0)
			CU_ASSERT_EQUAL(dut_trace_writer_close(w), 0);
	}
}

static const struct cu_test tests[] = {
	{ "rec_encode_decode_round_trip", test_rec_encode_decode_round_trip },
	{ "rec_layout_is_little_endian_in_order", test_rec_layout_is_little_endian_in_order },
	{ "op_names_round_trip", test_op_names_round_trip },
	{ "dutfs_ns_from_times", test_dutfs_ns_from_times },
	{ "reader_reads_v1_0_trace", test_reader_reads_v1_0_trace },
	{ "reader_dutfs_ns_only_from_1_1", test_reader_dutfs_ns_only_from_1_1 },
	{ "writer_threads_round_trip", test_writer_threads_round_trip },
	{ "writer_threads_round_trip_fixed", test_writer_threads_round_trip_fixed },
	{ "writer_drains_exited_threads", test_writer_drains_exited_threads },
	{ "writer_full_ring_counts_drops_exactly", test_writer_full_ring_counts_drops_exactly },
	{ "writer_close_counts_match_footer", test_writer_close_counts_match_footer },
	{ "writer_woken_at_an_eighth_of_the_ring", test_writer_woken_at_an_eighth_of_the_ring },
	{ "writer_growing_ring_drops_none", test_writer_growing_ring_drops_none },
	{ "writer_rejects_bad_ring_cap", test_writer_rejects_bad_ring_cap },
	{ "writer_to_full_device_counts_drops", test_writer_to_full_device_counts_drops },
	{ "writer_open_unwritable_location_fails", test_writer_open_unwritable_location_fails },
	{ "writer_disk_full_midway_keeps_whole_frames", test_writer_disk_full_midway_keeps_whole_frames },
	{ "reader_truncated_at_every_offset", test_reader_truncated_at_every_offset },
	{ "reader_rejects_corrupt_input", test_reader_rejects_corrupt_input },
	{ "reader_zero_tail_and_frame_after_footer", test_reader_zero_tail_and_frame_after_footer },
	{ "load_reports_missing_file", test_load_reports_missing_file },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = {
	.name = "trace", .init = suite_init, .cleanup = suite_cleanup, .tests = tests,
};
