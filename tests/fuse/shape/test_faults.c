/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault decisions, the unsynced-data journal and the engine's crash state
 * machine.  Random expectations come from an independent splitmix64 in
 * Python (the reference algorithm: Steele, Lea, Flood 2014):
 *   seed 0 first output 0xe220a8397b1dcdaf;
 *   seed 42, 10000 draws < 0.10: 961, the first at draws 5, 19, 22, 25;
 *   seed 7 first output % 9 = 3; seed 7, five draws & 1 -> sectors 1, 2, 4 lost;
 *   seed 7, four unit draws < 0.5 -> extents 0 and 1 lost.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/engine.h"
#include "fuse/shape/fault.h"
#include "fuse/shape/journal.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

static struct shape_fault *fault_from(const char *kv)
{
	struct shape_fault_params p;
	struct shape_fault *f = NULL;
	struct dut_error err = { "" };
	char buf[512], *save = NULL, *line;

	shape_fault_params_init(&p);
	snprintf(buf, sizeof(buf), "%s", kv);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		*eq = '\0';
		CU_CHECK(shape_fault_param_set(&p, line, eq + 1, &err) == 0, "%s: %s", line, err.msg);
	}
	CU_CHECK(shape_fault_params_check(&p, &err) == 0, "check: %s", err.msg);
	CU_CHECK(shape_fault_new("f", 1, &p, &f) == 0, "new");
	return f;
}

static bool fires(struct shape_fault *f, enum shape_op op, uint64_t off, uint64_t len,
		  struct shape_fault_effect *fx)
{
	struct shape_req r = { op, 1, off, len, 0 };

	return shape_fault_decide(f, &r, fx);
}

static void test_rng_reference_value(void)
{
	uint64_t s = 0;

	CU_CHECK(shape_rng_next(&s) == 0xe220a8397b1dcdafull, "splitmix64(0)");
}

static void test_nth_and_every(void)
{
	struct shape_fault *f = fault_from("type=error\nerrno=EIO\nnth=3");
	struct shape_fault_effect fx;
	unsigned fired = 0;

	for (unsigned k = 1; k <= 10; k++) {
		bool b = fires(f, SHAPE_OP_WRITE, 0, 8192, &fx);

		CU_CHECK(b == (k == 3), "nth=3, request %u: %d", k, b);
		if (b)
			CU_CHECK(fx.err == -EIO && fx.len == 8192 && !fx.crash, "effect");
	}
	shape_fault_free(f);

	f = fault_from("type=error\nerrno=EDQUOT\nevery=4");
	for (unsigned k = 1; k <= 12; k++) {
		bool b = fires(f, SHAPE_OP_READ, 0, 8192, &fx);

		CU_CHECK(b == (k % 4 == 0), "every=4, request %u", k);
		fired += b;
	}
	CU_CHECK(fired == 3 && f->fired == 3 && f->seen == 12, "every: %u", fired);
	shape_fault_free(f);
}

static void test_byte_range(void)
{
	static const struct { enum shape_op op; uint64_t off, len; bool want; } rows[] = {
		{ SHAPE_OP_WRITE, 0, 4096, false },        /* before */
		{ SHAPE_OP_WRITE, 4096, 8192, true },      /* overlaps the start */
		{ SHAPE_OP_READ, 15360, 2048, true },      /* overlaps the end */
		{ SHAPE_OP_READ, 16384, 4096, false },     /* just after: [8k, 16k) is half-open */
		{ SHAPE_OP_FSYNC, 0, 0, false },           /* no byte range */
		{ SHAPE_OP_PUNCH_HOLE, 0, 1 << 20, true }, /* covers it */
		{ SHAPE_OP_WRITE, 8191, 1, false },        /* the byte before */
	};
	struct shape_fault *f = fault_from("type=error\nerrno=EIO\noffset=8k\nlength=8k");
	struct shape_fault_effect fx;

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(fires(f, rows[i].op, rows[i].off, rows[i].len, &fx) == rows[i].want, "row %zu", i);
	shape_fault_free(f);

	/* nth counts only requests inside the range */
	f = fault_from("type=error\nerrno=EIO\noffset=8k\nlength=8k\nnth=2");
	CU_CHECK(!fires(f, SHAPE_OP_WRITE, 0, 4096, &fx), "outside");
	CU_CHECK(!fires(f, SHAPE_OP_WRITE, 8192, 4096, &fx), "first inside");
	CU_CHECK(!fires(f, SHAPE_OP_WRITE, 0, 4096, &fx), "outside again");
	CU_CHECK(fires(f, SHAPE_OP_WRITE, 12288, 4096, &fx), "second inside");
	shape_fault_free(f);
}

static void test_probability_with_fixed_seed(void)
{
	struct shape_fault *f = fault_from("type=error\nerrno=EIO\nprobability=10%\nseed=42");
	struct shape_fault_effect fx;
	unsigned n = 0, first[4], nfirst = 0;

	for (unsigned k = 1; k <= 10000; k++) {
		if (fires(f, SHAPE_OP_READ, 0, 8192, &fx)) {
			n++;
			if (nfirst < 4)
				first[nfirst++] = k;
		}
	}
	CU_CHECK(n == 961, "fired %u times, want 961", n);
	CU_CHECK(nfirst == 4 && first[0] == 5 && first[1] == 19 && first[2] == 22 && first[3] == 25,
		 "first firings %u %u %u %u", first[0], first[1], first[2], first[3]);
	shape_fault_free(f);
}

static void test_short_reads_and_writes(void)
{
	static const struct { const char *kv; enum shape_op op; uint64_t len; bool fire; uint64_t want; } rows[] = {
		{ "type=short\nkeep=50%", SHAPE_OP_READ, 8192, true, 4096 },
		{ "type=short\nkeep=4k", SHAPE_OP_WRITE, 16384, true, 4096 },
		{ "type=short\nkeep=4k", SHAPE_OP_WRITE, 4096, true, 4095 },   /* always short */
		{ "type=short\nkeep=0%", SHAPE_OP_READ, 8192, true, 0 },       /* EOF-like */
		{ "type=short\nkeep=50%", SHAPE_OP_READ, 1, false, 0 },        /* cannot be shorter */
		{ "type=short\nkeep=50%", SHAPE_OP_FSYNC, 0, false, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct shape_fault *f = fault_from(rows[i].kv);
		struct shape_fault_effect fx = { 0 };
		bool b = fires(f, rows[i].op, 0, rows[i].len, &fx);

		CU_CHECK(b == rows[i].fire && (!b || (fx.len == rows[i].want && fx.err == 0)),
			 "row %zu: fired %d len %llu", i, b, (unsigned long long)fx.len);
		shape_fault_free(f);
	}
}

/* ---- journal ---- */

static void expect_plan(struct shape_journal *j, const struct shape_discard *want, size_t nwant,
			const char *what)
{
	struct shape_discard *d = NULL;
	size_t n = 0;
	int r = shape_journal_crash(j, &d, &n);

	CU_CHECK(r == 0 && n == nwant, "%s: r=%d, %zu ranges, want %zu", what, r, n, nwant);
	for (size_t i = 0; i < n && i < nwant; i++)
		CU_CHECK(d[i].file_key == want[i].file_key && d[i].offset == want[i].offset &&
			 d[i].len == want[i].len, "%s: range %zu is (%llu, %llu, %llu)", what, i,
			 (unsigned long long)d[i].file_key, (unsigned long long)d[i].offset,
			 (unsigned long long)d[i].len);
	free(d);
}

static void write_done(struct shape_journal *j, const struct shape_loss *l, uint64_t key, uint64_t off,
		       uint64_t len)
{
	uint64_t tok;

	CU_CHECK(shape_journal_write_begin(j, key, off, len, l, &tok) == 0, "begin");
	shape_journal_write_end(j, tok, len);
}

static void test_journal_tracks_unsynced_ranges(void)
{
	const struct shape_loss all = { 100, SHAPE_TORN_NONE, 512 };
	struct shape_journal *j;
	uint64_t tok;

	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	write_done(j, &all, 1, 0, 8192);
	write_done(j, &all, 1, 8192, 8192);      /* adjacent: merges */
	write_done(j, &all, 1, 4096, 4096);      /* inside */
	write_done(j, &all, 1, 65536, 4096);
	CU_CHECK(shape_journal_unsynced_bytes(j, 1) == 16384 + 4096, "unsynced %llu",
		 (unsigned long long)shape_journal_unsynced_bytes(j, 1));
	shape_journal_sync(j, 1);
	CU_CHECK(shape_journal_unsynced_bytes(j, 1) == 0, "after fsync");

	write_done(j, &all, 2, 0, 65536);
	shape_journal_truncate(j, 2, 10000);     /* bytes past 10000 no longer exist */
	write_done(j, &all, 3, 4096, 4096);
	shape_journal_forget(j, 3);              /* unlinked */
	/* a failed write journals nothing; a short write journals what it wrote */
	CU_CHECK(shape_journal_write_begin(j, 4, 0, 8192, &all, &tok) == 0, "begin");
	shape_journal_write_end(j, tok, 0);
	CU_CHECK(shape_journal_write_begin(j, 4, 100000, 8192, &all, &tok) == 0, "begin");
	shape_journal_write_end(j, tok, 1000);
	{
		const struct shape_discard want[] = { { 2, 0, 10000 }, { 4, 100000, 1000 } };

		expect_plan(j, want, 2, "lose all");
	}
	expect_plan(j, NULL, 0, "journal is empty after a crash");
	shape_journal_free(j);
}

/*
 * A failed fsync drops the file's unsynced ranges: they are handed back for
 * the daemon to restore, and a later crash does not list them again (a
 * later fsync cannot make them durable).  Other files and writes still in
 * flight on the same file stay.
 */
static void test_journal_drop_at_fsync_error(void)
{
	const struct shape_loss all = { 100, SHAPE_TORN_NONE, 512 };
	struct shape_journal *j;
	struct shape_discard *d = NULL;
	size_t n = 0;
	uint64_t tok;

	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	write_done(j, &all, 1, 0, 8192);
	write_done(j, &all, 1, 65536, 4096);
	write_done(j, &all, 2, 0, 4096);
	CU_CHECK(shape_journal_write_begin(j, 1, 131072, 8192, &all, &tok) == 0, "begin");
	CU_CHECK(shape_journal_drop_unsynced(j, 1, &d, &n) == 0 && n == 2, "dropped %zu ranges", n);
	CU_CHECK(n == 2 && d[0].file_key == 1 && d[0].offset == 0 && d[0].len == 8192 &&
		 d[1].offset == 65536 && d[1].len == 4096, "the file's two unsynced ranges");
	free(d);
	CU_CHECK(shape_journal_unsynced_bytes(j, 1) == 0, "nothing of file 1 unsynced after the drop");
	CU_CHECK(shape_journal_drop_unsynced(j, 9, &d, &n) == 0 && n == 0 && !d, "no such file: nothing");
	shape_journal_write_end(j, tok, 8192);  /* the write in flight ends: a new epoch */
	{
		const struct shape_discard want[] = { { 1, 131072, 8192 }, { 2, 0, 4096 } };

		expect_plan(j, want, 2, "crash after the drop");
	}
	shape_journal_free(j);
}

static void test_journal_torn_writes(void)
{
	const struct shape_loss prefix = { 100, SHAPE_TORN_PREFIX, 4096 };
	const struct shape_loss random = { 100, SHAPE_TORN_RANDOM, 512 };
	const struct shape_loss none = { 100, SHAPE_TORN_NONE, 512 };
	struct shape_journal *j;
	uint64_t tok;

	/* prefix: 8 sectors in flight, first draw % 9 = 3 persist: [16384, 36864) lost */
	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	write_done(j, &prefix, 1, 0, 16384);     /* lose 100%: no draw */
	CU_CHECK(shape_journal_write_begin(j, 2, 4096, 32768, &prefix, &tok) == 0, "begin");
	{
		const struct shape_discard want[] = { { 1, 0, 16384 }, { 2, 16384, 20480 } };

		expect_plan(j, want, 2, "prefix");
	}
	shape_journal_free(j);

	/* random: [1000, 3048) spans sectors 1..5; draws & 1 = 0 for sectors 1, 2, 4 */
	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	CU_CHECK(shape_journal_write_begin(j, 5, 1000, 2048, &random, &tok) == 0, "begin");
	{
		const struct shape_discard want[] = { { 5, 1024, 1024 }, { 5, 2560, 488 } };

		expect_plan(j, want, 2, "random");
	}
	shape_journal_free(j);

	/* none: the whole in-flight write is lost; the write's end after the crash is harmless */
	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	CU_CHECK(shape_journal_write_begin(j, 6, 1000, 2048, &none, &tok) == 0, "begin");
	{
		const struct shape_discard want[] = { { 6, 1000, 2048 } };

		expect_plan(j, want, 1, "none");
	}
	shape_journal_write_end(j, tok, 2048);
	CU_CHECK(shape_journal_unsynced_bytes(j, 6) == 0, "stale token ignored");
	shape_journal_free(j);
}

static void test_journal_lose_probability(void)
{
	const struct shape_loss half = { 50, SHAPE_TORN_NONE, 512 };
	struct shape_journal *j;
	const struct shape_discard want[] = { { 3, 0, 4096 }, { 3, 8192, 4096 } };

	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	for (unsigned i = 0; i < 4; i++)
		write_done(j, &half, 3, i * 8192ull, 4096);
	expect_plan(j, want, 2, "lose 50%, seed 7");
	shape_journal_free(j);
}

/*
 * grain: the loss is drawn per grain-aligned piece of an extent, so a
 * sequential run of writes between two fsyncs can survive as any subset
 * (out of order), not only whole or not at all.  Piece k is lost when the
 * k-th draw of the journal's stream (seed 7) is below 50%.
 */
static void test_journal_grain_subset_out_of_order(void)
{
	const struct shape_loss half = { 50, SHAPE_TORN_NONE, 512, 4096 };
	struct shape_journal *j;
	struct shape_discard *d = NULL;
	size_t n = 0;
	uint64_t rng = 7, lost_mask = 0, want_mask = 0;
	/* [1000, 9000) + [65536, 65536 + 16 x 4k): 3 + 16 pieces */

	CU_CHECK(shape_journal_new(7, &j) == 0, "new");
	write_done(j, &half, 9, 1000, 8000);
	for (unsigned i = 0; i < 16; i++)
		write_done(j, &half, 9, 65536 + i * 4096ull, 4096);   /* merge into one extent */
	for (unsigned i = 0; i < 19; i++)
		if (shape_rng_unit(&rng) < 0.5)
			want_mask |= 1ull << i;
	CU_CHECK(shape_journal_crash(j, &d, &n) == 0, "crash");
	for (size_t i = 0; i < n; i++) {
		/* merged ranges: mark every piece they cover */
		for (uint64_t a = d[i].offset; a < d[i].offset + d[i].len; a = (a / 4096 + 1) * 4096) {
			unsigned p = a < 9000 ? (a < 4096 ? 0 : a < 8192 ? 1 : 2) : 3 + (unsigned)((a - 65536) / 4096);

			lost_mask |= 1ull << p;
		}
	}
	CU_CHECK(lost_mask == want_mask, "lost pieces %#llx, want %#llx",
		 (unsigned long long)lost_mask, (unsigned long long)want_mask);
	/* the draws of seed 7 lose some and keep some, not a prefix/suffix of the run */
	CU_CHECK(want_mask && want_mask != (1ull << 19) - 1, "seed 7 should lose a proper subset");
	CU_CHECK((want_mask >> 3) & ~(want_mask >> 4) & ((1ull << 15) - 1), "a lost piece before a kept one");
	free(d);
	shape_journal_free(j);
}

static void test_grain_key_parses_and_is_checked(void)
{
	struct shape_fault_params p;
	struct dut_error err = { "" };

	shape_fault_params_init(&p);
	CU_CHECK(shape_fault_param_set(&p, "type", "unsynced", &err) == 0, "type");
	CU_CHECK(shape_fault_param_set(&p, "grain", "4k", &err) == 0 && p.grain == 4096, "grain 4k");
	CU_CHECK(shape_fault_params_check(&p, &err) == 0, "check: %s", err.msg);
	CU_CHECK(shape_fault_param_set(&p, "grain", "3000", &err) == -EINVAL, "not a power of two");
	CU_CHECK(shape_fault_param_set(&p, "grain", "2M", &err) == -EINVAL, "too large");
	shape_fault_params_init(&p);
	shape_fault_param_set(&p, "type", "crash", &err);
	shape_fault_param_set(&p, "grain", "4k", &err);
	CU_CHECK(shape_fault_params_check(&p, &err) == -EINVAL, "grain on a crash fault");
}

/* ---- engine ---- */

static struct shape_engine *engine_from(const char *text)
{
	struct shape_rules *rs = NULL;
	struct shape_engine *e = NULL;
	struct dut_error err = { "" };

	if (shape_rules_parse(text, strlen(text), "t.ini", &rs, &err) < 0) {
		cu_fail("parse: %s", err.msg);
		return NULL;
	}
	CU_CHECK(shape_engine_new(rs, &e) == 0, "engine");
	return e;
}

static struct shape_verdict io(struct shape_engine *e, enum shape_op op, uint64_t key, uint64_t off,
			       uint64_t len, uint64_t now, int64_t result)
{
	struct shape_io x = { op, SHAPE_CLASS_WAL, "pg_wal/000000010000000000000001", key, off, len, now };
	struct shape_verdict v;

	shape_engine_submit(e, &x, &v);
	shape_engine_complete(e, &x, &v, v.err ? v.err : result);
	return v;
}

static void test_crash_recover_state_machine(void)
{
	struct shape_engine *e = engine_from(
		"[model m]\ntype = fixed\nread_latency = 1ms\nwrite_latency = 2ms\n"
		"[fault lost]\ntype = unsynced\n"
		"[rule wal]\nclass = wal\nmodel = m\nfault = lost\n");
	struct shape_discard *d;
	size_t n;
	struct shape_verdict v;

	if (!e)
		return;
	v = io(e, SHAPE_OP_WRITE, 1, 0, 8192, 100, 8192);
	CU_CHECK(v.rule && v.err == 0 && v.done_ns == 100 + 2000000 && v.journaled, "write shaped");
	io(e, SHAPE_OP_FSYNC, 1, 0, 0, 200, 0);
	io(e, SHAPE_OP_WRITE, 1, 8192, 8192, 300, 8192);
	CU_CHECK(shape_engine_crash(e) == 0, "crash");
	CU_CHECK(shape_engine_crash(e) == -EALREADY, "crash twice is an error");
	CU_CHECK(shape_engine_crashed(e), "crashed");
	v = io(e, SHAPE_OP_READ, 1, 0, 8192, 400, 8192);
	CU_CHECK(v.err == -EIO, "everything fails while crashed: %d", v.err);
	v = io(e, SHAPE_OP_OPEN, 2, 0, 0, 400, 0);
	CU_CHECK(v.err == -EIO, "even open");
	shape_engine_take_plan(e, &d, &n);
	CU_CHECK(n == 1 && d[0].file_key == 1 && d[0].offset == 8192 && d[0].len == 8192,
		 "plan: only the write after the fsync is lost (%zu)", n);
	free(d);
	CU_CHECK(shape_engine_recover(e) == 0, "recover");
	CU_CHECK(shape_engine_recover(e) == -EINVAL, "recover when running");
	v = io(e, SHAPE_OP_READ, 1, 0, 8192, 500, 8192);
	CU_CHECK(v.err == 0 && v.done_ns == 500 + 1000000, "works again");
	shape_engine_free(e);
}

static void test_barriers_off_keeps_data_unsynced(void)
{
	struct shape_engine *e = engine_from(
		"[model m]\ntype = fixed\nread_latency = 1ms\nwrite_latency = 1ms\nbarriers = off\n"
		"[fault lost]\ntype = unsynced\n"
		"[rule wal]\nmodel = m\nfault = lost\n");
	struct shape_discard *d;
	size_t n;
	struct shape_verdict v;

	if (!e)
		return;
	io(e, SHAPE_OP_WRITE, 1, 0, 4096, 0, 4096);
	v = io(e, SHAPE_OP_FDATASYNC, 1, 0, 0, 10, 0);
	CU_CHECK(v.skip_sync && v.done_ns == 10, "fdatasync returns at once");
	CU_CHECK(shape_engine_crash(e) == 0, "crash");
	shape_engine_take_plan(e, &d, &n);
	CU_CHECK(n == 1 && d[0].offset == 0 && d[0].len == 4096, "data never synced is lost");
	free(d);
	shape_engine_free(e);
}

static void test_crash_fault_and_counters(void)
{
	struct shape_engine *e = engine_from(
		"[model m]\ntype = fixed\nread_latency = 1ms\nwrite_latency = 3ms\n"
		"[fault boom]\ntype = crash\nnth = 3\n"
		"[fault full]\ntype = error\nerrno = ENOSPC\nnth = 1\n"
		"[rule wal]\nop = write\nmodel = m\nfault = full, boom\n"
		"[rule other]\nmodel = m\n");
	struct json_object *st, *rules, *r0, *v;
	struct shape_verdict x;

	if (!e)
		return;
	x = io(e, SHAPE_OP_WRITE, 1, 0, 4096, 0, 4096);
	CU_CHECK(x.err == -ENOSPC, "first write: ENOSPC (%d)", x.err);
	x = io(e, SHAPE_OP_WRITE, 1, 0, 4096, 0, 4096);
	CU_CHECK(x.err == 0 && x.done_ns == 3000000, "second write shaped");
	x = io(e, SHAPE_OP_READ, 1, 0, 4096, 0, 4096);
	CU_CHECK(x.err == 0 && strcmp(x.rule->name, "other") == 0, "read: other rule");
	x = io(e, SHAPE_OP_WRITE, 1, 0, 4096, 0, 4096);
	CU_CHECK(x.err == -EIO && shape_engine_crashed(e), "third write crashes the device");
	st = shape_engine_stats_json(e);
	CU_CHECK(json_object_object_get_ex(st, "rules", &rules) && json_object_array_length(rules) == 2,
		 "rules array");
	r0 = json_object_array_get_idx(rules, 0);
	CU_CHECK(json_object_object_get_ex(r0, "matched", &v) && json_object_get_int64(v) == 3, "matched 3");
	CU_CHECK(json_object_object_get_ex(r0, "faults_fired", &v) && json_object_get_int64(v) == 2, "fired 2");
	CU_CHECK(json_object_object_get_ex(r0, "delay_ns", &v) && json_object_get_int64(v) == 3000000, "delay");
	CU_CHECK(json_object_object_get_ex(st, "crashed", &v) && json_object_get_boolean(v), "crashed");
	json_object_put(st);
	shape_engine_free(e);
}

static const struct cu_test tests[] = {
	{ "rng_reference_value", test_rng_reference_value },
	{ "nth_and_every", test_nth_and_every },
	{ "byte_range", test_byte_range },
	{ "probability_with_fixed_seed", test_probability_with_fixed_seed },
	{ "short_reads_and_writes", test_short_reads_and_writes },
	{ "journal_tracks_unsynced_ranges", test_journal_tracks_unsynced_ranges },
	{ "journal_drop_at_fsync_error", test_journal_drop_at_fsync_error },
	{ "journal_torn_writes", test_journal_torn_writes },
	{ "journal_lose_probability", test_journal_lose_probability },
	{ "journal_grain_subset_out_of_order", test_journal_grain_subset_out_of_order },
	{ "grain_key_parses_and_is_checked", test_grain_key_parses_and_is_checked },
	{ "crash_recover_state_machine", test_crash_recover_state_machine },
	{ "barriers_off_keeps_data_unsynced", test_barriers_off_keeps_data_unsynced },
	{ "crash_fault_and_counters", test_crash_fault_and_counters },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "shape_faults", .tests = tests };
