/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader's clones and time windows (lib/trace_stream_window.c):
 * a windowed stream gives exactly the whole stream's records with
 * lo <= ts < hi, in its order, for traces read in place (1.1), decoded
 * into arrays (2.0), decoded as merged (2.0, no arrays) and taken on their
 * spans (2.1); the windows dut_trace_stream_cut makes give the whole stream
 * end to end; two clones read on two threads at once; a damaged frame in a
 * window is still an error; a window late in the trace does not split the
 * blocks before it.  The whole stream is the reference (test_trace_stream.c
 * checks it against the stable sort).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_tune.h"
#include "tests/cu_main.h"
#include "tests/lib/trace_build.h"

enum mode { M_FIXED, M_DECODED, M_CODED, M_SPAN, M_SPAN_CODED, MODES };
static const char *const mode_name[] = { "1.1", "2.0 decoded", "2.0 coded", "2.1 spans",
					 "2.1 spans coded" };

struct recs {
	struct dut_trace_rec *v;
	size_t n, cap;
};

static void recs_add(struct recs *r, const struct dut_trace_rec *v, size_t n)
{
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		if (!r->v)
			abort();
	}
	memcpy(r->v + r->n, v, n * sizeof(*v));
	r->n += n;
}

/* A trace: frames of times by file order, built in one mode. */
struct gen {
	uint64_t *ts;
	size_t *nr;
	size_t n, nf;
};

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/*
 * nt writer threads' frames interleaved in time, rounds of 1000 ns: runs
 * of equal times, time going down inside frames, and every 50th round a
 * frame written late (its times 20 rounds old), so a block's earliest
 * record can be far before its neighbours'.
 */
static void gen_make(struct gen *g, size_t rounds, unsigned nt, uint64_t seed)
{
	size_t fcap = rounds * (nt + 1), cap = fcap * 60;
	uint64_t x = seed, base = 100000;

	*g = (struct gen){ .ts = malloc(cap * sizeof(uint64_t)), .nr = malloc(fcap * sizeof(size_t)) };
	CU_ASSERT_FATAL(g->ts && g->nr);
	for (size_t round = 0; round < rounds; round++, base += 1000) {
		for (unsigned t = 0; t < nt + (round % 50 == 49); t++) {
			bool late = t == nt;
			size_t k = 1 + lcg(&x) % (late ? 60 : 35);
			uint64_t at = (late ? base - 20000 : base) + lcg(&x) % 50;

			for (size_t i = 0; i < k; i++) {
				g->ts[g->n++] = at;
				at += lcg(&x) % 3 == 0 ? 0 : lcg(&x) % 60;
				if (lcg(&x) % 61 == 0)
					at -= at - base > 30 ? 30 : 0;
			}
			g->nr[g->nf++] = k;
		}
	}
	CU_ASSERT_FATAL(g->n <= cap && g->nf <= fcap);
}

static void gen_free(struct gen *g)
{
	free(g->ts);
	free(g->nr);
}

/* g's frames as a trace in mode m; frames of at least span_min records get a CSPAN (2.1 modes). */
static struct tbuf gen_build(const struct gen *g, enum mode m, uint64_t *idx)
{
	struct tbuf b = { 0 };
	bool compact = m != M_FIXED, spans = m == M_SPAN || m == M_SPAN_CODED;
	size_t at = 0;

	put_header(&b, compact);
	for (size_t f = 0; f < g->nf; f++) {
		put_frame_span(&b, compact, spans && g->nr[f] >= 4, g->ts + at, g->nr[f], idx);
		at += g->nr[f];
	}
	put_footer(&b, g->n);
	return b;
}

static bool coded(enum mode m)
{
	return m == M_CODED || m == M_SPAN_CODED;
}

static int stream_open(const struct tbuf *b, enum mode m, struct dut_trace_stream **ret)
{
	struct dut_error err = { { 0 } };
	int r = dut_trace_stream_open_buf(b->p, b->len, ret, &err);

	if (r == 0 && coded(m))
		dut_trace_stream_set_decoded_cap(*ret, 0);
	return r;
}

/* Read s to its end into out; 0 or the stream's error. */
static int stream_drain(struct dut_trace_stream *s, struct recs *out)
{
	const struct dut_trace_rec *v;
	size_t n;
	int r;

	while ((r = dut_trace_stream_next(s, &v, &n)) == 0 && n)
		recs_add(out, v, n);
	return r;
}

/* got must be whole's records with lo <= ts < hi, record by record. */
static void check_filtered(const char *what, const struct recs *whole, uint64_t lo, uint64_t hi,
			   const struct recs *got)
{
	size_t j = 0;

	for (size_t i = 0; i < whole->n; i++) {
		const struct dut_trace_rec *w = &whole->v[i];

		if (w->ts_ns < lo || w->ts_ns >= hi)
			continue;
		if (j >= got->n || memcmp(w, &got->v[j], sizeof(*w)) != 0) {
			cu_fail("%s [%llu, %llu): record %zu is %s#%llu at %llu, expected #%llu at %llu", what,
				(unsigned long long)lo, (unsigned long long)hi, j, j >= got->n ? "missing " : "",
				j < got->n ? (unsigned long long)got->v[j].lat_ns : 0ull,
				j < got->n ? (unsigned long long)got->v[j].ts_ns : 0ull,
				(unsigned long long)w->lat_ns, (unsigned long long)w->ts_ns);
			return;
		}
		j++;
	}
	CU_CHECK(j == got->n, "%s [%llu, %llu): %zu records, %zu expected", what, (unsigned long long)lo,
		 (unsigned long long)hi, got->n, j);
}

/* Windows around the trace's times: through equal-time runs, empty, before and after all. */
static size_t windows_of(const struct recs *whole, uint64_t (*w)[2], size_t cap)
{
	uint64_t first = whole->v[0].ts_ns, last = whole->v[whole->n - 1].ts_ns;
	size_t n = 0;

	w[n][0] = 0, w[n++][1] = UINT64_MAX;
	w[n][0] = 0, w[n++][1] = first;              /* before all: empty */
	w[n][0] = 0, w[n++][1] = first + 1;          /* the first time only */
	w[n][0] = last, w[n++][1] = UINT64_MAX;      /* the last time only */
	w[n][0] = last + 1, w[n++][1] = UINT64_MAX;  /* after all: empty */
	w[n][0] = first, w[n++][1] = last + 1;
	for (size_t i = 1; i < 8 && n + 5 <= cap; i++) {
		uint64_t t = whole->v[whole->n * i / 8].ts_ns, u = whole->v[whole->n * (9 - i) / 9].ts_ns;

		w[n][0] = t, w[n++][1] = t;              /* empty */
		w[n][0] = t, w[n++][1] = t + 1;          /* one run of equal times */
		w[n][0] = t, w[n++][1] = UINT64_MAX;
		w[n][0] = 0, w[n++][1] = t;
		w[n][0] = t < u ? t : u, w[n++][1] = t < u ? u + 1 : t;
	}
	return n;
}

static void read_whole(const struct tbuf *b, enum mode m, struct recs *whole)
{
	struct dut_trace_stream *s = NULL;

	*whole = (struct recs){ 0 };
	CU_ASSERT_EQUAL_FATAL(stream_open(b, m, &s), 0);
	CU_ASSERT_EQUAL_FATAL(stream_drain(s, whole), 0);
	dut_trace_stream_close(s);
	CU_ASSERT_FATAL(whole->n > 0);
}

static void check_windows(const char *name, const struct gen *g, size_t max_windows)
{
	for (enum mode m = 0; m < MODES; m++) {
		uint64_t idx = 0, w[64][2];
		struct tbuf b = gen_build(g, m, &idx);
		struct recs whole;
		char what[128];
		size_t nw;

		read_whole(&b, m, &whole);
		CU_ASSERT_EQUAL(whole.n, g->n);
		nw = windows_of(&whole, w, max_windows);
		snprintf(what, sizeof(what), "%s (%s)", name, mode_name[m]);
		for (size_t i = 0; i < nw; i++) {
			struct dut_trace_stream *s = NULL;
			struct recs got = { 0 };

			CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
			dut_trace_stream_set_window(s, w[i][0], w[i][1]);
			CU_ASSERT_EQUAL(stream_drain(s, &got), 0);
			check_filtered(what, &whole, w[i][0], w[i][1], &got);
			dut_trace_stream_close(s);
			free(got.v);
		}
		free(whole.v);
		free(b.p);
	}
}

static void test_window_gives_the_whole_streams_records_in_it(void)
{
	struct gen g;

	/* one block: many frames, the windows cut through runs of equal times */
	gen_make(&g, 200, 4, 1);
	check_windows("one block", &g, 64);
	gen_free(&g);
	/* several 2 MiB blocks in every mode, and late frames in the middle of them */
	gen_make(&g, 2500, 6, 2);
	CU_ASSERT(g.n * 8 > DUT_TRACE_BLOCK_SIZE);
	check_windows("many blocks", &g, 16);
	gen_free(&g);
}

/* The k windows of dut_trace_stream_cut, each read by a clone, one after another: the whole stream. */
static void check_cut(const char *what, struct dut_trace_stream *s, const struct recs *whole, size_t k)
{
	uint64_t bounds[8];
	struct recs got = { 0 };

	dut_trace_stream_cut(s, k, bounds);
	CU_CHECK(bounds[0] == 0 && bounds[k] == UINT64_MAX, "%s, k %zu: bounds %llu .. %llu", what, k,
		 (unsigned long long)bounds[0], (unsigned long long)bounds[k]);
	for (size_t i = 0; i < k; i++) {
		struct dut_trace_stream *c = NULL;
		size_t before = got.n;

		CU_CHECK(bounds[i] <= bounds[i + 1], "%s, k %zu: bound %zu goes down", what, k, i);
		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_clone(s, &c), 0);
		dut_trace_stream_set_window(c, bounds[i], bounds[i + 1]);
		CU_ASSERT_EQUAL(stream_drain(c, &got), 0);
		dut_trace_stream_close(c);
		/* about equal counts: none more than twice its share (the trace's times are even) */
		CU_CHECK(k == 1 || (got.n - before) * k <= 2 * whole->n, "%s, k %zu: window %zu has %zu of %zu",
			 what, k, i, got.n - before, whole->n);
	}
	check_filtered(what, whole, 0, UINT64_MAX, &got);
	free(got.v);
}

static void test_cut_windows_give_the_whole_stream(void)
{
	struct gen g;

	gen_make(&g, 2000, 6, 3);
	for (enum mode m = 0; m < MODES; m++) {
		uint64_t idx = 0;
		struct tbuf b = gen_build(&g, m, &idx);
		struct dut_trace_stream *s = NULL;
		struct recs whole;

		read_whole(&b, m, &whole);
		CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
		for (size_t k = 1; k <= 5; k++)
			check_cut(mode_name[m], s, &whole, k);
		dut_trace_stream_close(s);
		free(whole.v);
		free(b.p);
	}
	gen_free(&g);
}

struct reader {
	struct dut_trace_stream *s;
	bool prefetch;
	struct recs got;
	int r;
};

static void *reader_run(void *arg)
{
	struct reader *rd = arg;

	rd->r = rd->prefetch ? dut_trace_stream_prefetch(rd->s) : 0;
	if (rd->r == 0)
		rd->r = stream_drain(rd->s, &rd->got);
	return NULL;
}

/*
 * Two clones of one stream, each its half, read on two threads at once:
 * both merging in their reading thread, or (every other mode) the second
 * with its own merge thread.
 */
static void test_two_clones_read_at_once_on_two_threads(void)
{
	struct gen g;

	gen_make(&g, 2000, 6, 4);
	for (enum mode m = 0; m < MODES; m++) {
		uint64_t idx = 0, bounds[3];
		struct tbuf b = gen_build(&g, m, &idx);
		struct dut_trace_stream *s = NULL;
		struct reader rd[2] = { { 0 } };
		pthread_t th[2];
		struct recs whole;

		read_whole(&b, m, &whole);
		CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
		dut_trace_stream_cut(s, 2, bounds);
		for (int i = 0; i < 2; i++) {
			CU_ASSERT_EQUAL_FATAL(dut_trace_stream_clone(s, &rd[i].s), 0);
			dut_trace_stream_set_window(rd[i].s, bounds[i], bounds[i + 1]);
			rd[i].prefetch = i == 1 && m % 2; /* else both merge in their own threads */
		}
		for (int i = 0; i < 2; i++)
			CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, reader_run, &rd[i]), 0);
		for (int i = 0; i < 2; i++) {
			pthread_join(th[i], NULL);
			CU_CHECK(rd[i].r == 0, "%s: clone %d: %d", mode_name[m], i, rd[i].r);
			check_filtered(mode_name[m], &whole, bounds[i], bounds[i + 1], &rd[i].got);
			CU_CHECK(rd[i].got.n * 10 >= whole.n * 4, "%s: clone %d has %zu of %zu", mode_name[m], i,
				 rd[i].got.n, whole.n);
			dut_trace_stream_close(rd[i].s);
			free(rd[i].got.v);
		}
		dut_trace_stream_close(s); /* after its clones: it owns the bytes' index */
		free(whole.v);
		free(b.p);
	}
	gen_free(&g);
}

/*
 * A window late in a trace of many blocks splits only the blocks at its
 * times: about a quarter of them, not all (the work is the window's).
 * Coded modes split as decoded ones do.
 */
static void test_late_window_does_not_split_the_early_blocks(void)
{
	struct gen g;

	gen_make(&g, 8000, 6, 5);
	/* the scan's max_ts: from RECORDS frames, decoded CRECORDS frames, CSPAN frames */
	for (enum mode m = 0; m <= M_SPAN; m += m == M_DECODED ? 2 : 1) {
		uint64_t idx = 0;
		struct tbuf b = gen_build(&g, m, &idx);
		struct dut_trace_stream *s = NULL;
		struct recs whole, got = { 0 };
		size_t all, part;
		uint64_t lo;

		read_whole(&b, m, &whole);
		lo = whole.v[whole.n * 3 / 4].ts_ns;
		CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
		CU_ASSERT_EQUAL(stream_drain(s, &got), 0);
		all = dut_trace_stream_blocks_split(s);
		dut_trace_stream_close(s);
		got.n = 0;
		CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
		dut_trace_stream_set_window(s, lo, UINT64_MAX);
		CU_ASSERT_EQUAL(stream_drain(s, &got), 0);
		part = dut_trace_stream_blocks_split(s);
		check_filtered(mode_name[m], &whole, lo, UINT64_MAX, &got);
		CU_CHECK(all >= 4 && part * 2 <= all, "%s: the last quarter split %zu blocks of %zu",
			 mode_name[m], part, all);
		/* and one before its first quarter stops splitting after it */
		dut_trace_stream_close(s);
		got.n = 0;
		CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
		dut_trace_stream_set_window(s, 0, whole.v[whole.n / 4].ts_ns);
		CU_ASSERT_EQUAL(stream_drain(s, &got), 0);
		part = dut_trace_stream_blocks_split(s);
		CU_CHECK(part * 2 <= all, "%s: the first quarter split %zu blocks of %zu", mode_name[m], part,
			 all);
		dut_trace_stream_close(s);
		free(got.v);
		free(whole.v);
		free(b.p);
	}
	gen_free(&g);
}

/* The loader's message for buf (it reads every frame). */
static void loader_error(const struct tbuf *b, struct dut_error *ret)
{
	struct dut_trace *t = NULL;

	CU_ASSERT_EQUAL(dut_trace_parse(b->p, b->len, &t, ret), -EBADMSG);
	dut_trace_free(t);
}

/*
 * A 2.1 trace: early records fill block 0, then a CRECORDS frame of later
 * times that starts exactly at block 1, its CSPAN frame the last of block
 * 0, then more.  harm_span: the span says one less than the frame's latest
 * time; else a record of it does not decode.  *ret_t: the frame's earliest time.
 */
static struct tbuf build_damaged(bool harm_span, uint64_t *ret_t)
{
	struct tbuf b = { 0 };
	uint64_t ts[64], idx = 0, t = 1000;
	size_t crec;

	put_header(&b, true);
	while (b.len < DUT_TRACE_BLOCK_SIZE - 4096) {
		for (size_t i = 0; i < 64; i++)
			ts[i] = t++;
		put_frame_span(&b, true, true, ts, 64, &idx);
	}
	put_filler(&b, DUT_TRACE_BLOCK_SIZE - DUT_TRACE_CSPAN_FRAME);
	*ret_t = t += 1000000;
	for (int f = 0; f < 50; f++) {
		crec = b.len + DUT_TRACE_CSPAN_FRAME;
		for (size_t i = 0; i < 64; i++)
			ts[i] = t++;
		put_frame_span(&b, true, true, ts, 64, &idx);
		if (f == 0) {
			uint8_t *sp = b.p + crec - DUT_TRACE_CSPAN_SIZE;

			CU_ASSERT_EQUAL_FATAL(crec, DUT_TRACE_BLOCK_SIZE);
			if (harm_span)
				dut_le64_put(sp + 8, dut_le64_get(sp + 8) - 1);
			else
				b.p[crec + DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED] |= 0x80;
		}
	}
	put_footer(&b, idx);
	return b;
}

/*
 * A window over a damaged frame fails as the loader does, with its message,
 * also when the window skipped the block that holds the frame's CSPAN; a
 * window that ends before the damaged block is read without error.
 */
static void test_damaged_frame_in_a_window_is_an_error(void)
{
	for (int hs = 0; hs < 2; hs++) {
		for (int coded_ = 0; coded_ < 2; coded_++) {
			static const char *const harm_name[] = { "a record that does not decode",
								 "span max earlier" };
			enum mode m = coded_ ? M_SPAN_CODED : M_SPAN;
			uint64_t t;
			struct tbuf b = build_damaged(hs, &t);
			const uint64_t win[][2] = { { t, UINT64_MAX }, { t + 5, t + 100 }, { 0, UINT64_MAX },
						    { 1500, t + 1 } };
			struct dut_error e1 = { { 0 } };

			loader_error(&b, &e1);
			for (size_t i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
				struct dut_trace_stream *s = NULL;
				struct dut_error e2 = { { 0 } };
				struct recs got = { 0 };
				int r;

				CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
				dut_trace_stream_set_window(s, win[i][0], win[i][1]);
				r = stream_drain(s, &got);
				dut_trace_stream_error(s, &e2);
				CU_CHECK(r == -EBADMSG && !strcmp(e1.msg, e2.msg),
					 "%s (%s), [%llu, %llu): %d \"%s\" after %zu records (loader \"%s\")",
					 harm_name[hs], mode_name[m], (unsigned long long)win[i][0],
					 (unsigned long long)win[i][1], r, e2.msg, got.n, e1.msg);
				dut_trace_stream_close(s);
				free(got.v);
			}
			/* before the damaged block: no error, the records before it */
			struct dut_trace_stream *s = NULL;
			struct recs got = { 0 };

			CU_ASSERT_EQUAL_FATAL(stream_open(&b, m, &s), 0);
			dut_trace_stream_set_window(s, 0, 2000);
			CU_CHECK(stream_drain(s, &got) == 0 && got.n == 1000, "%s (%s): %zu records before it",
				 harm_name[hs], mode_name[m], got.n);
			dut_trace_stream_close(s);
			free(got.v);
			free(b.p);
		}
	}
}

/* Parts of a set: the first frames' times from each part, overlapping at the seams as rotation makes. */
static int set_open(struct tbuf *parts, size_t np, enum mode m, struct dut_trace_stream **ret)
{
	struct dut_trace_stream **ps = calloc(np, sizeof(*ps));

	CU_ASSERT_FATAL(ps != NULL);
	for (size_t i = 0; i < np; i++)
		CU_ASSERT_EQUAL_FATAL(stream_open(&parts[i], m, &ps[i]), 0);
	return dut_trace_stream_set(ps, np, NULL, ret);
}

/* A rotated trace: a set of three segments, windowed, cut and cloned like one trace. */
static void test_segment_set_windows_like_one_trace(void)
{
	struct gen g[3];

	for (int i = 0; i < 3; i++) {
		gen_make(&g[i], 500, 4, 10 + (uint64_t)i);
		for (size_t j = 0; j < g[i].n; j++)
			g[i].ts[j] += (uint64_t)i * 490000; /* the seams overlap by about 10 rounds */
	}
	for (enum mode m = 0; m < MODES; m++) {
		struct tbuf parts[3];
		struct dut_trace_stream *s = NULL;
		struct recs whole = { 0 };
		uint64_t idx = 0, w[64][2];
		char what[64];
		size_t nw;

		for (int i = 0; i < 3; i++)
			parts[i] = gen_build(&g[i], m, &idx);
		CU_ASSERT_EQUAL_FATAL(set_open(parts, 3, m, &s), 0);
		CU_ASSERT_EQUAL(stream_drain(s, &whole), 0);
		dut_trace_stream_close(s);
		CU_ASSERT_EQUAL(whole.n, g[0].n + g[1].n + g[2].n);
		snprintf(what, sizeof(what), "set (%s)", mode_name[m]);
		nw = windows_of(&whole, w, 21);
		for (size_t i = 0; i < nw; i++) {
			struct recs got = { 0 };

			CU_ASSERT_EQUAL_FATAL(set_open(parts, 3, m, &s), 0);
			dut_trace_stream_set_window(s, w[i][0], w[i][1]);
			CU_ASSERT_EQUAL(stream_drain(s, &got), 0);
			check_filtered(what, &whole, w[i][0], w[i][1], &got);
			dut_trace_stream_close(s);
			free(got.v);
		}
		CU_ASSERT_EQUAL_FATAL(set_open(parts, 3, m, &s), 0);
		for (size_t k = 1; k <= 5; k++)
			check_cut(what, s, &whole, k);
		dut_trace_stream_close(s);
		for (int i = 0; i < 3; i++)
			free(parts[i].p);
		free(whole.v);
	}
	for (int i = 0; i < 3; i++)
		gen_free(&g[i]);
}

static const struct cu_test tests[] = {
	{ "window_gives_the_whole_streams_records_in_it", test_window_gives_the_whole_streams_records_in_it },
	{ "cut_windows_give_the_whole_stream", test_cut_windows_give_the_whole_stream },
	{ "two_clones_read_at_once_on_two_threads", test_two_clones_read_at_once_on_two_threads },
	{ "late_window_does_not_split_the_early_blocks", test_late_window_does_not_split_the_early_blocks },
	{ "damaged_frame_in_a_window_is_an_error", test_damaged_frame_in_a_window_is_an_error },
	{ "segment_set_windows_like_one_trace", test_segment_set_windows_like_one_trace },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "trace_stream_window", .tests = tests };
