/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device models against hand-computed service times.  Each model is built
 * from rules-file text (so the parameters go through the parser and the
 * unit parser), then fed requests; expectations are worked out in the
 * comments from the formulas in fuse/shape/model_*.c.
 */
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "fuse/shape/rules.h"
#include "fuse/shape/shape.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

#define US 1000ull
#define MS 1000000ull
#define S 1000000000ull

static struct shape_rules *parse_model(const char *model_text)
{
	char text[2048];
	struct shape_rules *rs = NULL;
	struct dut_error err = { "" };
	int r;

	snprintf(text, sizeof(text), "[model m]\n%s\n[rule all]\nmodel = m\n", model_text);
	r = shape_rules_parse(text, strlen(text), "t.ini", &rs, &err);
	CU_CHECK(r == 0, "parse model: %s", err.msg);
	return r == 0 ? rs : NULL;
}

static uint64_t submit(struct shape_model *m, enum shape_op op, uint64_t key, uint64_t off,
		       uint64_t len, uint64_t now)
{
	struct shape_req r = { op, key, off, len, now };
	struct shape_model_result res;

	shape_model_submit(m, &r, &res);
	return res.done_ns;
}

struct step {
	enum shape_op op;
	uint64_t key, off, len, now, want;
	const char *why;
};

static void rundir_steps(const char *model_text, const struct step *steps, size_t n)
{
	struct shape_rules *rs = parse_model(model_text);

	if (!rs)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t got = submit(rs->models[0], steps[i].op, steps[i].key, steps[i].off,
				      steps[i].len, steps[i].now);

		CU_CHECK(got == steps[i].want, "step %zu (%s): done %llu, want %llu", i, steps[i].why,
			 (unsigned long long)got, (unsigned long long)steps[i].want);
	}
	shape_rules_free(rs);
}

static void test_fixed_latency_plus_per_byte(void)
{
	static const struct step steps[] = {
		/* 100us + 4096 B at 100 MB/s (40.96us) */
		{ SHAPE_OP_READ, 1, 0, 4096, 1000, 1000 + 100 * US + 40960, "read" },
		/* no queueing: a second read at the same time completes alike */
		{ SHAPE_OP_READ, 1, 0, 4096, 1000, 1000 + 100 * US + 40960, "parallel read" },
		/* 50us + 8192 B at 50 MB/s (163.84us) */
		{ SHAPE_OP_WRITE, 2, 0, 8192, 0, 50 * US + 163840, "write" },
		{ SHAPE_OP_FSYNC, 2, 0, 0, 7 * MS, 9 * MS, "fsync = fsync_latency 2ms" },
		{ SHAPE_OP_OPEN, 2, 0, 0, 5, 5, "open costs nothing" },
	};

	rundir_steps("type = fixed\nread_latency = 100us\nwrite_latency = 50us\n"
		  "read_bw = 100MB/s\nwrite_bw = 50MB/s\nfsync_latency = 2ms\n",
		  steps, DUT_ARRAY_SIZE(steps));
}

static void test_barriers_off_skips_fsync(void)
{
	struct shape_rules *rs = parse_model("type = fixed\nread_latency = 1ms\nwrite_latency = 1ms\n"
					     "fsync_latency = 5ms\nbarriers = off\n");
	struct shape_req r = { SHAPE_OP_FDATASYNC, 1, 0, 0, 123 };
	struct shape_model_result res;

	if (!rs)
		return;
	shape_model_submit(rs->models[0], &r, &res);
	CU_CHECK(res.done_ns == 123 && res.skip_sync, "fdatasync with barriers off: done %llu skip %d",
		 (unsigned long long)res.done_ns, res.skip_sync);
	shape_rules_free(rs);
}

static void test_token_bucket_refill(void)
{
	static const struct step combined[] = {
		/* burst 64 KiB, 1 MB/s: the first 64 KiB passes at once */
		{ SHAPE_OP_READ, 1, 0, 65536, 0, 0, "empties the bucket" },
		/* 4096 B of debt at 1e6 B/s = 4.096 ms (writes share the bucket) */
		{ SHAPE_OP_WRITE, 1, 0, 4096, 0, 4096 * US, "debt" },
		/* at 10 ms: -4096 + 10000 = 5904 tokens, 4096 taken: no wait */
		{ SHAPE_OP_READ, 1, 0, 4096, 10 * MS, 10 * MS, "refilled" },
		/* 1808 - 100000 = -98192: 98.192 ms */
		{ SHAPE_OP_READ, 1, 0, 100000, 10 * MS, 10 * MS + 98192 * US, "big request" },
		/* at 1 s the refill is capped at the burst: no wait */
		{ SHAPE_OP_READ, 1, 0, 65536, S, S, "capped at burst" },
		{ SHAPE_OP_READ, 1, 0, 1000, S, S + 1 * MS, "then 1000 B of debt = 1 ms" },
	};
	static const struct step split[] = {
		/* burst 4 KiB per bucket; reads 1 MB/s, writes 2 MB/s */
		{ SHAPE_OP_READ, 1, 0, 8192, 0, 4096 * US, "read debt 4096 at 1 MB/s" },
		{ SHAPE_OP_WRITE, 1, 0, 8192, 0, 2048 * US, "write bucket is separate, 2 MB/s" },
	};

	rundir_steps("type = bandwidth\nrate = 1MB/s\nburst = 64k\n", combined, DUT_ARRAY_SIZE(combined));
	rundir_steps("type = bandwidth\nread_rate = 1MB/s\nwrite_rate = 2MB/s\nburst = 4k\n", split,
		  DUT_ARRAY_SIZE(split));
}

static void test_queue_burst_of_32(void)
{
	static const unsigned channels[] = { 1, 4, 8 };

	for (size_t c = 0; c < DUT_ARRAY_SIZE(channels); c++) {
		char text[256];
		struct shape_rules *rs;
		uint64_t got;

		snprintf(text, sizeof(text), "type = queue\nchannels = %u\nlatency = 100us\nfsync_latency = 1ms\n",
			 channels[c]);
		rs = parse_model(text);
		if (!rs)
			return;
		/* 32 requests at t=0: request k completes in round floor(k / N) + 1 */
		for (unsigned k = 0; k < 32; k++) {
			got = submit(rs->models[0], k % 2 ? SHAPE_OP_WRITE : SHAPE_OP_READ, 1,
				     k * 8192ull, 8192, 0);
			CU_CHECK(got == (k / channels[c] + 1) * 100 * US, "N=%u request %u: %llu",
				 channels[c], k, (unsigned long long)got);
		}
		/* fsync waits until all channels drained (32 / N rounds), then 1 ms */
		got = submit(rs->models[0], SHAPE_OP_FSYNC, 1, 0, 0, 0);
		CU_CHECK(got == (32 / channels[c]) * 100 * US + 1 * MS, "N=%u fsync: %llu", channels[c],
			 (unsigned long long)got);
		/* after idle, no queue */
		got = submit(rs->models[0], SHAPE_OP_READ, 1, 0, 8192, S);
		CU_CHECK(got == S + 100 * US, "N=%u idle read: %llu", channels[c], (unsigned long long)got);
		shape_rules_free(rs);
	}
}

/*
 * Channels add concurrency, not capacity: 64 x 1 MiB writes at t=0 on an ssd
 * with 100 us latency and 100 MB/s finish when 64 MiB have crossed the
 * shared link (671 ms plus one latency) whatever the channel count, while
 * the latency overlaps across channels: with N channels request k waits
 * floor(k / N) latencies less than it would on one.
 */
static void test_channels_share_the_device_rate(void)
{
	static const unsigned channels[] = { 1, 4, 8 };
	const uint64_t mib = 1048576, xfer = (mib * S + 50000000) / 100000000; /* ns at 100 MB/s */

	for (size_t c = 0; c < DUT_ARRAY_SIZE(channels); c++) {
		char text[256];
		struct shape_rules *rs;
		uint64_t got = 0;

		snprintf(text, sizeof(text), "type = ssd\nread_latency = 100us\nwrite_latency = 100us\n"
			 "write_bw = 100MB/s\nread_bw = 100MB/s\ncapacity = 1G\nchannels = %u\n", channels[c]);
		rs = parse_model(text);
		if (!rs)
			return;
		for (unsigned k = 0; k < 64; k++)
			got = submit(rs->models[0], SHAPE_OP_WRITE, 1, k * mib, mib, 0);
		/* one channel: 64 x (latency + xfer); N > 1: the first latency, then the link back to back */
		uint64_t want = channels[c] == 1 ? 64 * (100 * US + xfer) : 100 * US + 64 * xfer;

		CU_CHECK(got == want, "N=%u: 64 MiB written by %llu ns, want %llu", channels[c],
			 (unsigned long long)got, (unsigned long long)want);
		CU_CHECK((double)(64 * mib) * S / (double)got <= 100e6 * 1.001,
			 "N=%u: the aggregate rate does not exceed write_bw", channels[c]);
		shape_rules_free(rs);
	}
}

static void test_hdd_seek_curve_fit_points(void)
{
	static const struct { double f; uint64_t want; const char *why; } rows[] = {
		{ 0, 0, "no move, no seek" },
		{ 1e-16, 1 * MS, "shortest move: track-to-track" },
		{ 1.0 / 12, 4500 * US, "sqrt part: 1 + 7 * sqrt(1/4)" },
		{ 1.0 / 3, 8 * MS, "one third: average" },
		{ 2.0 / 3, 12 * MS, "linear part halfway" },
		{ 1, 16 * MS, "full stroke" },
		{ 2, 16 * MS, "clamped" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint64_t got = shape_seek_curve_ns(1 * MS, 8 * MS, 16 * MS, rows[i].f);

		CU_CHECK(got + 1 >= rows[i].want && got <= rows[i].want + 1, "%s: %llu want %llu",
			 rows[i].why, (unsigned long long)got, (unsigned long long)rows[i].want);
	}
}

/* 6000 rpm: 10 ms per revolution, 5 ms average rotation; 100 MB/s: a track is 1e6 B,
 * 4096 B transfer in 40.96 us.  3 GB capacity: 1e9 B is a third of a stroke. */
#define HDD "type = hdd\nrpm = 6000\ntrack_to_track = 1ms\naverage_seek = 8ms\nfull_stroke = 16ms\n" \
	    "transfer = 100MB/s\ncapacity = 3GB\n"
#define XFER 40960ull

static void test_hdd_seek_and_rotation(void)
{
	const uint64_t t1 = 8 * MS + 5 * MS + XFER;
	const uint64_t t2 = 3 * S;
	const struct step steps[] = {
		{ SHAPE_OP_READ, 0, 1000000000, 4096, 0, t1, "average seek + half a turn + transfer" },
		/* back to back: the next sector is under the head */
		{ SHAPE_OP_READ, 0, 1000004096, 4096, t1, t1 + XFER, "sequential, no gap" },
		/* 2 ms later the sector has passed: wait 10 - 2 = 8 ms for it */
		{ SHAPE_OP_READ, 0, 1000008192, 4096, t1 + XFER + 2 * MS, t1 + XFER + 2 * MS + 8 * MS + XFER,
		  "sequential after a 2 ms gap: position-based rotation" },
		/* 500 kB away: same track, no seek */
		{ SHAPE_OP_READ, 0, 1000512288, 4096, t2, t2 + 5 * MS + XFER, "same track" },
		/* to the end of the platter, then back to 0: a full stroke */
		{ SHAPE_OP_READ, 0, 3000000000ull - 4096, 4096, 4 * S, 0, NULL },
		{ SHAPE_OP_READ, 0, 0, 4096, 5 * S, 5 * S + 16 * MS + 5 * MS + XFER, "full stroke" },
		/* a second file lives one 1 GiB slot further: 1073741824 B away = 0.358 stroke */
		{ SHAPE_OP_READ, 9, 0, 4096, 6 * S, 0, NULL },
	};
	struct shape_rules *rs = parse_model(HDD);

	if (!rs)
		return;
	for (size_t i = 0; i < DUT_ARRAY_SIZE(steps); i++) {
		uint64_t got = submit(rs->models[0], steps[i].op, steps[i].key, steps[i].off, steps[i].len,
				      steps[i].now);

		if (steps[i].why)
			CU_CHECK(got == steps[i].want, "step %zu (%s): %llu want %llu", i, steps[i].why,
				 (unsigned long long)got, (unsigned long long)steps[i].want);
		else if (i == 6) {
			/* from 4096 to 1073741824: f = 1073737728 / 3e9 */
			uint64_t want = shape_seek_curve_ns(1 * MS, 8 * MS, 16 * MS, 1073737728.0 / 3e9) +
					5 * MS + XFER;

			CU_CHECK(got == 6 * S + want, "second file's slot: %llu want %llu",
				 (unsigned long long)got, (unsigned long long)(6 * S + want));
		}
	}
	shape_rules_free(rs);
}

static void test_hdd_readahead_hits(void)
{
	const uint64_t t1 = 8 * MS + 5 * MS + XFER;
	const struct step steps[] = {
		{ SHAPE_OP_READ, 0, 1000000000, 4096, 0, t1, "miss" },
		/* 2 ms gap, but the drive kept reading ahead: transfer only */
		{ SHAPE_OP_READ, 0, 1000004096, 4096, t1 + 2 * MS, t1 + 2 * MS + XFER, "hit after a gap" },
		/* inside the window but not at the head: still a hit */
		{ SHAPE_OP_READ, 0, 1000100000, 4096, 2 * S, 2 * S + XFER, "hit further on" },
		/* a write into the window drops it (head moves to its end: sequential, gap -> rotation) */
		{ SHAPE_OP_WRITE, 0, 1000200000, 4096, 3 * S, 3 * S + 5 * MS + XFER, "write, same track" },
		{ SHAPE_OP_READ, 0, 1000300000, 4096, 4 * S, 4 * S + 5 * MS + XFER, "miss after the write" },
		/* at the window's end (1 MiB after the last read's end): a miss, 1048576 B away */
		{ SHAPE_OP_READ, 0, 1000304096 + 1048576, 4096, 5 * S,
		  5 * S + shape_seek_curve_ns(1 * MS, 8 * MS, 16 * MS, 1048576 / 3e9) + 5 * MS + XFER,
		  "past the window" },
	};

	rundir_steps(HDD "cache = 1M\n", steps, DUT_ARRAY_SIZE(steps));
}

/* SLC 1 MiB filled at 1 GB/s (262144 B in 262.144 us), native 100 MB/s, 20 us write latency,
 * recovery 10 MB/s while idle. */
static void test_ssd_slc_exhaustion_and_recovery(void)
{
	struct shape_rules *rs = parse_model("type = ssd\nread_latency = 100us\nwrite_latency = 20us\n"
					     "write_bw = 100MB/s\ncapacity = 1G\nslc_size = 1M\n"
					     "slc_write_bw = 1GB/s\nslc_recovery = 10MB/s\n");
	const uint64_t in_slc = 20 * US + 262144, native = 20 * US + 2621440;
	uint64_t got, done = 0;
	struct json_object *st, *v;

	if (!rs)
		return;
	/* four 256 KiB writes fill the cache exactly; the fifth goes native */
	for (unsigned k = 0; k < 5; k++) {
		done += k < 4 ? in_slc : native;
		got = submit(rs->models[0], SHAPE_OP_WRITE, 1, k * 262144ull, 262144, 0);
		CU_CHECK(got == done, "write %u: %llu want %llu", k, (unsigned long long)got,
			 (unsigned long long)done);
	}
	/* idle 50 ms after the device drained: 500000 B of cache freed */
	got = submit(rs->models[0], SHAPE_OP_WRITE, 1, 0, 262144, done + 50 * MS);
	CU_CHECK(got == done + 50 * MS + in_slc, "after recovery: %llu", (unsigned long long)got);
	/* used 548576 + 262144 = 810720; room 237856 in SLC, 24288 B native (242.88 us) */
	got = submit(rs->models[0], SHAPE_OP_WRITE, 1, 0, 262144, done + 50 * MS);
	CU_CHECK(got == done + 50 * MS + in_slc + 20 * US + 237856 + 242880, "split write: %llu",
		 (unsigned long long)got);
	st = shape_model_stats_json(rs->models[0]);
	CU_CHECK(json_object_object_get_ex(st, "slc_used_bytes", &v) && json_object_get_int64(v) == 1048576,
		 "cache full again: %s", json_object_to_json_string(st));
	json_object_put(st);
	/* reads are not affected by the cache */
	got = submit(rs->models[0], SHAPE_OP_READ, 1, 0, 4096, 10 * S);
	CU_CHECK(got == 10 * S + 100 * US, "read: %llu", (unsigned long long)got);
	shape_rules_free(rs);
}

/* capacity 10 MiB = 160 grains of 64 KiB: 30% = 48 grains = 3 MiB, 60% = 6 MiB, 90% = 9 MiB. */
static void test_ssd_fill_penalty(void)
{
	struct shape_rules *rs = parse_model("type = ssd\nread_latency = 50us\nwrite_latency = 100us\n"
					     "capacity = 10M\nfill_penalty = 30%=1.0, 60%=1.4, 90%=2.6\n");
	struct shape_model *m;
	uint64_t t = 0;
	struct {
		enum shape_op op;
		uint64_t key, off, len;
		uint64_t want;   /* probe write service after the step */
		const char *why;
	} rows[] = {
		/* with the probe's grain: 47 + 1 = 48 grains */
		{ SHAPE_OP_WRITE, 1, 0, (3 << 20) - 65536, 100 * US, "30% after writes" },
		{ SHAPE_OP_WRITE, 2, 0, 1536 << 10, 120 * US, "45%: halfway to 1.4" },
		{ SHAPE_OP_WRITE, 2, 1536 << 10, 1536 << 10, 140 * US, "60%" },
		{ SHAPE_OP_WRITE, 3, 0, 3 << 20, 260 * US, "90%" },
		{ SHAPE_OP_TRUNCATE, 3, 0, 0, 140 * US, "truncate back to 60%" },
		/* a hole that covers no whole grain frees nothing */
		{ SHAPE_OP_PUNCH_HOLE, 2, 1, 65535, 140 * US, "partial grain hole" },
		{ SHAPE_OP_PUNCH_HOLE, 2, 0, 3 << 20, 100 * US, "punch back to 30%" },
		{ SHAPE_OP_TRUNCATE, 1, 3 << 20, 0, 100 * US, "truncate beyond the data" },
		/* truncating to 65537 keeps grains 0 and 1 of file 1: 3 grains in all */
		{ SHAPE_OP_TRUNCATE, 1, 65537, 0, 100 * US, "below the first point" },
		{ SHAPE_OP_UNLINK, 1, 0, 0, 100 * US, "unlink" },
	};

	if (!rs)
		return;
	m = rs->models[0];
	submit(m, SHAPE_OP_WRITE, 99, 0, 4096, 0);   /* the probe file: 1 grain */
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint64_t got;

		t += S;
		if (rows[i].op == SHAPE_OP_WRITE) {
			/* one write per 64 KiB, as a database would */
			for (uint64_t o = 0; o < rows[i].len; o += 65536)
				submit(m, SHAPE_OP_WRITE, rows[i].key, rows[i].off + o, 65536, t);
		} else {
			submit(m, rows[i].op, rows[i].key, rows[i].off, rows[i].len, t);
		}
		t += 10 * S;
		/* probe: overwrite 4 KiB of the probe file's one grain (no step frees it) */
		got = submit(m, SHAPE_OP_WRITE, 99, 0, 4096, t) - t;
		CU_CHECK(got == rows[i].want, "row %zu (%s): %llu want %llu", i, rows[i].why,
			 (unsigned long long)got, (unsigned long long)rows[i].want);
	}
	shape_rules_free(rs);
}

static void test_ssd_fill_exact_table_points(void)
{
	/* exact: 48, 96, 144 grains held by one file, probes overwrite held data */
	static const struct { uint64_t grains; uint64_t want; } rows[] = {
		{ 48, 100 * US }, { 96, 140 * US }, { 144, 260 * US }, { 160, 260 * US },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct shape_rules *rs = parse_model("type = ssd\nread_latency = 50us\nwrite_latency = 100us\n"
						     "capacity = 10M\nfill_penalty = 30%=1.0, 60%=1.4, 90%=2.6\n");
		uint64_t got;

		if (!rs)
			return;
		submit(rs->models[0], SHAPE_OP_WRITE, 1, 0, rows[i].grains * 65536, 0);
		got = submit(rs->models[0], SHAPE_OP_WRITE, 1, 0, 4096, S) - S;
		CU_CHECK(got == rows[i].want, "%llu grains: %llu want %llu", (unsigned long long)rows[i].grains,
			 (unsigned long long)got, (unsigned long long)rows[i].want);
		shape_rules_free(rs);
	}
	/* prefill counts as held data */
	struct shape_rules *rs = parse_model("type = ssd\nread_latency = 50us\nwrite_latency = 100us\n"
					     "capacity = 10M\nprefill = 60%\nfill_penalty = 30%=1.0, 60%=1.4, 90%=2.6\n");
	if (rs) {
		uint64_t got = submit(rs->models[0], SHAPE_OP_WRITE, 1, 0, 4096, 0);

		CU_CHECK(got == 140 * US, "prefill 60%%: %llu", (unsigned long long)got);
		shape_rules_free(rs);
	}
}

static const struct cu_test tests[] = {
	{ "fixed_latency_plus_per_byte", test_fixed_latency_plus_per_byte },
	{ "barriers_off_skips_fsync", test_barriers_off_skips_fsync },
	{ "token_bucket_refill", test_token_bucket_refill },
	{ "queue_burst_of_32", test_queue_burst_of_32 },
	{ "channels_share_the_device_rate", test_channels_share_the_device_rate },
	{ "hdd_seek_curve_fit_points", test_hdd_seek_curve_fit_points },
	{ "hdd_seek_and_rotation", test_hdd_seek_and_rotation },
	{ "hdd_readahead_hits", test_hdd_readahead_hits },
	{ "ssd_slc_exhaustion_and_recovery", test_ssd_slc_exhaustion_and_recovery },
	{ "ssd_fill_penalty", test_ssd_fill_penalty },
	{ "ssd_fill_exact_table_points", test_ssd_fill_exact_table_points },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "shape_models", .tests = tests };
