/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader and report against the loading ones, on synthetic
 * traces (tools/trace/trace_gen.h) made in memory: the stream must give exactly
 * the records dut_trace_parse() sorts (same order, equal times in file
 * order), the same meta trace, and a report that renders byte for byte
 * like report_build() over the loaded trace, for every --by.  The cases
 * are what the merge has to get right: many and few writer threads, tiny
 * frames, records written behind later ones of their thread, a record
 * written many rounds late, equal times on one file across threads,
 * truncation inside a frame, a 1.0 trace, no records; each also as a 2.1
 * trace of compact frames (trace-gen --compact), and as a 2.0 one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_tune.h"
#include "tests/cu_main.h"
#include "tests/tools/render_mem.h"
#include "tools/report/report.h"
#include "tools/report/export.h"
#include "tools/trace/trace_gen.h"

DUT_DEFINE_FREEP(struct report *, report_free)
DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)
DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)

struct membuf {
	uint8_t *p;
	size_t n, cap;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
	struct membuf *b = ctx;

	if (b->n + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 1 << 16;
		uint8_t *q;

		while (ncap < b->n + n)
			ncap *= 2;
		if (!(q = realloc(b->p, ncap)))
			return -ENOMEM;
		b->p = q;
		b->cap = ncap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

struct gen_case {
	const char *name;
	struct trace_gen_opts o;
	size_t cut;                    /* keep only this many bytes (0: all) */
};

static const struct gen_case cases[] = {
	{ "default", { .records = 30000, .seed = 1 } },
	{ "one thread", { .records = 5000, .seed = 2, .threads = 1 } },
	{ "many threads, tiny frames", { .records = 20000, .seed = 3, .threads = 40, .frame_recs = 3,
					 .round_recs = 200 } },
	{ "disorder and ties", { .records = 30000, .seed = 4, .disorder_pct = 20, .ties = true,
				 .markers = 4 } },
	{ "straggler, far behind", { .records = 120000, .seed = 5, .stragglers = 300, .markers = 2,
				     .round_recs = 100 } },
	{ "all ties on few files", { .records = 20000, .seed = 6, .ties = true, .files = 2, .threads = 5,
				     .disorder_pct = 50 } },
	{ "unknown ids, dutfs finding", { .records = 20000, .seed = 7, .unknown_ids = true,
					  .dutfs_heavy = true, .markers = 3 } },
	{ "v1.0, no footer", { .records = 10000, .seed = 8, .v1_0 = true, .no_footer = true } },
	{ "cut inside a frame", { .records = 50000, .seed = 9, .disorder_pct = 5 }, 1234567 },
	{ "no records", { .records = 0, .seed = 10, .markers = 0 } },
	{ "one record, markers", { .records = 1, .seed = 11, .markers = 3 } },
	{ "big trace, many blocks", { .records = 400000, .seed = 12, .threads = 12, .disorder_pct = 1,
				      .stragglers = 3, .markers = 5 } },
};

static bool rec_eq(const struct dut_trace_rec *a, const struct dut_trace_rec *b)
{
	return a->ts_ns == b->ts_ns && a->offset == b->offset && a->lat_ns == b->lat_ns &&
	       a->len == b->len && a->result == b->result && a->file_id == b->file_id &&
	       a->pid == b->pid && a->op == b->op && a->flags == b->flags && a->dutfs_ns == b->dutfs_ns;
}

/* The stream's records, in its order, against the loaded (sorted) ones. */
static void check_order(const char *name, struct dut_trace_stream *s, const struct dut_trace *t)
{
	size_t k = 0;
	bool ok = true;

	for (;;) {
		const struct dut_trace_rec *v;
		size_t n;

		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_next(s, &v, &n), 0);
		if (n == 0)
			break;
		for (size_t i = 0; i < n && ok; i++, k++) {
			if (k >= t->nrecs || !rec_eq(&v[i], &t->recs[k])) {
				cu_fail("%s: record %zu of the stream differs from the sorted trace's", name, k);
				ok = false;
			}
		}
		if (!ok)
			return;
	}
	CU_CHECK(k == t->nrecs, "%s: the stream gave %zu records, the trace has %zu", name, k, t->nrecs);
}

static void check_meta(const char *name, const struct dut_trace *m, const struct dut_trace *t)
{
	CU_CHECK(m->nrecs == t->nrecs && m->nfiles == t->nfiles && m->nmarkers == t->nmarkers &&
		 m->truncated == t->truncated && m->valid_bytes == t->valid_bytes &&
		 m->has_footer == t->has_footer &&
		 m->footer.records_written == t->footer.records_written &&
		 !strcmp(m->info ? m->info : "", t->info ? t->info : "") && m->recs == NULL,
		 "%s: meta trace: %zu records %zu files %zu markers, loaded: %zu %zu %zu", name,
		 m->nrecs, m->nfiles, m->nmarkers, t->nrecs, t->nfiles, t->nmarkers);
	for (size_t i = 0; i < m->nmarkers && i < t->nmarkers; i++)
		CU_CHECK(m->markers[i].ts_ns == t->markers[i].ts_ns &&
			 !strcmp(m->markers[i].label, t->markers[i].label), "%s: marker %zu", name, i);
}

/*
 * How the streamed report is cut: one builder (the merge on a second
 * thread), 2 windows cut at the scan's blocks (what `dutlab report` does
 * on a big trace), and windows cut inside blocks: at the middle record's
 * time (a tie of several records on the "ties" cases), and into 3 and 5
 * even stretches of time.
 */
enum cut_how { CUT_ONE, CUT_BLOCKS, CUT_AT_RECORD, CUT_EVEN3, CUT_EVEN5, CUT_HOWS };
static const char *const cut_name[] = { "one builder", "2 windows at blocks", "2 windows at a record",
					"3 even windows", "5 even windows" };

static int build_cut(struct dut_trace_stream *s, const struct dut_trace *t, enum cut_how how,
		     struct rep_wal_guess *g, struct report **ret)
{
	uint64_t b[6] = { 0 }, first, last;
	unsigned k = how == CUT_EVEN3 ? 3 : how == CUT_EVEN5 ? 5 : 2;

	if (how == CUT_ONE)
		return report_build_stream_ways(s, NULL, NULL, g, 1, ret);
	if (how == CUT_BLOCKS)
		return report_build_stream_ways(s, NULL, NULL, g, 2, ret);
	dut_trace_stream_span(s, &first, &last);
	for (unsigned i = 1; i < k; i++)
		b[i] = how == CUT_AT_RECORD ? (t->nrecs ? t->recs[t->nrecs / 2].ts_ns : 0)
					    : first + (last - first) / k * i;
	b[k] = UINT64_MAX;
	return report_build_stream_windows(s, NULL, NULL, g, k, b, ret);
}

/*
 * The streamed report equals the loaded one, cut every way above (windows
 * each on their own reader and thread: report_build_par.c), and the WAL
 * page guess counts the same writes every way.
 */
static void check_reports(const char *name, const struct dut_trace *t, const uint8_t *buf, size_t len)
{
	static const enum rep_by bys[] = { REP_BY_CLASS, REP_BY_FILE, REP_BY_RELATION, REP_BY_PHASE,
					   REP_BY_PROCESS };
	_cleanup_(report_freep) struct report *want = NULL;
	struct rep_wal_guess g1 = { 0 };

	CU_ASSERT_EQUAL_FATAL(report_build(t, NULL, &want), 0);
	/* the guess's writes, counted here from the loaded trace */
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_file *f = NULL;

		for (size_t j = 0; j < t->nfiles && !f; j++)
			f = t->files[j].id == t->recs[i].file_id ? &t->files[j] : NULL;
		if (f && f->pg.cls == DUT_PG_WAL && t->recs[i].op == DUT_OP_WRITE)
			rep_wal_guess_add(&g1, &t->recs[i]);
	}
	for (enum cut_how how = 0; how < CUT_HOWS; how++) {
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		_cleanup_(report_freep) struct report *got = NULL;
		struct dut_error err = { { 0 } };
		struct rep_wal_guess g = { 0 };

		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(buf, len, &s, &err), 0);
		CU_ASSERT_EQUAL_FATAL(build_cut(s, t, how, &g, &got), 0);
		CU_CHECK(memcmp(&g1, &g, sizeof(g1)) == 0, "%s, %s: %" PRIu64 " WAL writes counted, "
			 "%" PRIu64 " in the loaded trace", name, cut_name[how], g.writes, g1.writes);
		for (size_t i = 0; i < DUT_ARRAY_SIZE(bys); i++) {
			_cleanup_free_ char *a = render_mem_human(want, bys[i], 0);
			_cleanup_free_ char *b = render_mem_human(got, bys[i], 0);

			CU_ASSERT_FATAL(a && b);
			CU_CHECK(strcmp(a, b) == 0, "%s, %s: --by %s: the streamed report differs:\n"
				 "--- loaded\n%s\n--- streamed\n%s", name, cut_name[how], rep_by_name(bys[i]), a, b);
		}
	}
}

/*
 * A case as a 1.1 trace (compact false) or as a 2.0 one: the same records
 * in CRECORDS frames (not for a 1.0 case); a cut is then at a third of the
 * bytes, about the same place in the records.
 */
static bool v2_0; /* compact variants as 2.0 traces: CRECORDS without CSPAN */

static bool case_variant(const struct gen_case *gc, bool compact, struct trace_gen_opts *ret_o,
			 size_t *ret_cut)
{
	if (compact && gc->o.v1_0)
		return false;
	*ret_o = gc->o;
	ret_o->compact = compact;
	ret_o->v2_0 = compact && v2_0;
	*ret_cut = compact ? gc->cut / 3 : gc->cut;
	return true;
}

/*
 * Generate case gc in one format (case_variant), cut it where the case says,
 * and both load it (*t) and open it as a stream (*s); false when the case has
 * no such variant.
 */
static bool open_case(const struct gen_case *gc, bool compact, struct membuf *mb, size_t *ret_len,
		      size_t *ret_cut, struct dut_trace **t, struct dut_trace_stream **s,
		      struct dut_error *e1, struct dut_error *e2)
{
	struct trace_gen_opts o;

	if (!case_variant(gc, compact, &o, ret_cut))
		return false;
	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, mb), 0);
	*ret_len = *ret_cut && *ret_cut < mb->n ? *ret_cut : mb->n;
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mb->p, *ret_len, t, e1), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(mb->p, *ret_len, s, e2), 0);
	return true;
}

static void stream_gives_the_loaded_order_and_report(bool compact)
{
	for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
		const struct gen_case *gc = &cases[c];
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
		struct membuf mb = { 0 };
		size_t len, cut;

		if (!open_case(gc, compact, &mb, &len, &cut, &t, &s, &e1, &e2))
			continue;
		CU_CHECK(strcmp(e1.msg, e2.msg) == 0, "%s: warning \"%s\", stream \"%s\"", gc->name, e1.msg, e2.msg);
		CU_CHECK(!cut || t->truncated, "%s: the cut trace is not truncated", gc->name);
		check_meta(gc->name, dut_trace_stream_meta(s), t);
		check_order(gc->name, s, t);
		check_reports(gc->name, t, mb.p, len);
		free(mb.p);
	}
}

/*
 * The merge's two ways with a compact frame (decoded whole into an array
 * when split, or kept encoded and decoded as merged, past the cap), alone
 * and mixed: the same order as the loaded trace either way.
 */
static void test_compact_stream_order_at_every_decoded_cap(void)
{
	static const size_t caps[] = { 0, 4096, 64 * 1024 };
	size_t checked = 0;

	for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
		const struct gen_case *gc = &cases[c];
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error e1 = { { 0 } };
		struct membuf mb = { 0 };
		struct trace_gen_opts o;
		size_t len, cut;

		if (!case_variant(gc, true, &o, &cut))
			continue;
		CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
		len = cut && cut < mb.n ? cut : mb.n;
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mb.p, len, &t, &e1), 0);
		for (size_t i = 0; i < DUT_ARRAY_SIZE(caps); i++) {
			_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
			struct dut_error e2 = { { 0 } };
			char name[128];

			snprintf(name, sizeof(name), "%s, decoded cap %zu", gc->name, caps[i]);
			CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(mb.p, len, &s, &e2), 0);
			dut_trace_stream_set_decoded_cap(s, caps[i]);
			check_order(name, s, t);
			checked++;
		}
		free(mb.p);
	}
	CU_ASSERT(checked >= 27);
}

/*
 * The merge on its own thread (dut_trace_stream_prefetch, what
 * report_build_stream does) gives the same records in the same order, and
 * the end again when asked past it; a stream closed after one batch, with
 * the thread waiting for a free slot, closes.
 */
static void test_prefetched_stream_gives_the_loaded_order(void)
{
	for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
		for (int compact = 0; compact < 2; compact++) {
			const struct gen_case *gc = &cases[c];
			_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL, *early = NULL;
			_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
			struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
			const struct dut_trace_rec *v;
			struct membuf mb = { 0 };
			size_t len, cut, n;

			if (!open_case(gc, compact, &mb, &len, &cut, &t, &s, &e1, &e2))
				continue;
			CU_ASSERT_EQUAL_FATAL(dut_trace_stream_prefetch(s), 0);
			check_order(gc->name, s, t);
			CU_ASSERT_EQUAL(dut_trace_stream_next(s, &v, &n), 0);
			CU_ASSERT_EQUAL(n, 0);
			CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(mb.p, len, &early, &e2), 0);
			CU_ASSERT_EQUAL_FATAL(dut_trace_stream_prefetch(early), 0);
			CU_ASSERT_EQUAL(dut_trace_stream_next(early, &v, &n), 0);
			CU_ASSERT(n > 0 || t->nrecs == 0);
			dut_trace_stream_close(TAKE_PTR(early));
			dut_trace_stream_close(TAKE_PTR(s));
			free(mb.p);
		}
	}
}

static void test_stream_gives_the_loaded_order_and_report(void)
{
	stream_gives_the_loaded_order_and_report(false);
}

static void test_compact_stream_gives_the_loaded_order_and_report(void)
{
	stream_gives_the_loaded_order_and_report(true);
}

/* 2.0 traces (no CSPAN: the scan decodes their frames) still stream as they load. */
static void test_v2_0_stream_gives_the_loaded_order_and_report(void)
{
	v2_0 = true;
	stream_gives_the_loaded_order_and_report(true);
	v2_0 = false;
}

/* A case written compact loads to the very records of its 1.1 trace, in the same order. */
static void test_compact_loads_as_fixed(void)
{
	size_t checked = 0;

	for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
		const struct gen_case *gc = &cases[c];
		_cleanup_(dut_trace_freep) struct dut_trace *tf = NULL, *tc = NULL;
		struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
		struct membuf mf = { 0 }, mc = { 0 };
		struct trace_gen_opts o;
		size_t cut, bad = 0;

		if (gc->cut || !case_variant(gc, true, &o, &cut))
			continue;
		CU_ASSERT_EQUAL_FATAL(trace_gen(&gc->o, mem_write, &mf), 0);
		CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mc), 0);
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mf.p, mf.n, &tf, &e1), 0);
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mc.p, mc.n, &tc, &e2), 0);
		CU_CHECK(tc->hdr.version_major == 2 && tf->hdr.version_major == 1, "%s: versions %u and %u",
			 gc->name, tc->hdr.version_major, tf->hdr.version_major);
		CU_CHECK(tc->nrecs == tf->nrecs, "%s: %zu and %zu records", gc->name, tc->nrecs, tf->nrecs);
		for (size_t i = 0; i < tc->nrecs && i < tf->nrecs; i++)
			bad += !rec_eq(&tc->recs[i], &tf->recs[i]);
		CU_CHECK(bad == 0, "%s: %zu records differ", gc->name, bad);
		CU_CHECK(tc->nrecs < 100 || mc.n * 2 < mf.n, "%s: compact %zu bytes, 1.1 %zu", gc->name, mc.n, mf.n);
		checked++;
		free(mf.p);
		free(mc.p);
	}
	CU_ASSERT(checked >= 9);
}

/* One export into a string: its exit code, output and error text. */
static int export_to(const struct dut_trace *t, const char *path, const struct export_opts *o,
		     char **ret_out, uint64_t *ret_n, char *msg, size_t msg_len)
{
	struct dut_error err = { { 0 } };
	struct export_src *src = NULL;
	size_t len;
	FILE *f = open_memstream(ret_out, &len);
	int r;

	if (!f)
		return -ENOMEM;
	if (t) {
		r = export_check(t, o, &err);
		if (r == 0)
			r = export_write(t, o, f, ret_n, &err);
	} else {
		r = export_src_open(path, &src, &err);
		if (r == 0)
			r = export_src_check(src, o, &err);
		if (r == 0)
			r = export_src_write(src, o, f, ret_n, &err);
		export_src_close(src);
	}
	fclose(f);
	snprintf(msg, msg_len, "%s", r < 0 ? err.msg : "");
	return r;
}

/* dutlab export streams the trace (#25): the same bytes, counts and errors as the loaded export. */
static void test_streamed_export_equals_loaded(void)
{
	static const struct export_opts opts[] = {
		{ .format = EXPORT_CSV },
		{ .format = EXPORT_FIO },
		{ .format = EXPORT_FIO, .prefix = "/data", .phase = "phase-1" },
		{ .format = EXPORT_CSV, .ops_mask = 1u << DUT_OP_FSYNC, .phase = "phase-2" },
	};
	char path[] = "/tmp/dut-export-stream.XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	for (size_t c = 0; c < 2 * DUT_ARRAY_SIZE(cases); c++) {
		const struct gen_case *gc = &cases[c / 2];
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		struct dut_error e1 = { { 0 } };
		struct membuf mb = { 0 };
		struct trace_gen_opts o;
		size_t len, cut;
		FILE *f;

		if (!case_variant(gc, c % 2, &o, &cut)) /* each case 1.1, then compact */
			continue;
		CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
		len = cut && cut < mb.n ? cut : mb.n;
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mb.p, len, &t, &e1), 0);
		f = fopen(path, "w");
		CU_ASSERT_FATAL(f && fwrite(mb.p, 1, len, f) == len && fclose(f) == 0);
		for (size_t k = 0; k < DUT_ARRAY_SIZE(opts); k++) {
			char *o1 = NULL, *o2 = NULL, m1[600], m2[600];
			uint64_t n1 = 0, n2 = 0;
			int r1 = export_to(t, NULL, &opts[k], &o1, &n1, m1, sizeof(m1));
			int r2 = export_to(NULL, path, &opts[k], &o2, &n2, m2, sizeof(m2));

			CU_CHECK(r1 == r2 && !strcmp(m1, m2), "%s, opts %zu: loaded %d \"%s\", streamed %d \"%s\"",
				 gc->name, k, r1, m1, r2, m2);
			CU_CHECK(r1 < 0 || (n1 == n2 && o1 && o2 && !strcmp(o1, o2)),
				 "%s, opts %zu: %llu and %llu records, outputs %s", gc->name, k,
				 (unsigned long long)n1, (unsigned long long)n2,
				 o1 && o2 && !strcmp(o1, o2) ? "equal" : "differ");
			free(o1);
			free(o2);
		}
		free(mb.p);
	}
	unlink(path);
}

/* The generator's cases really are what they say: out of order in the file, ties. */
static void test_cases_are_out_of_order_in_the_file(void)
{
	const struct gen_case *gc = &cases[3]; /* disorder and ties */
	struct membuf mb = { 0 };
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	size_t ties = 0;

	CU_ASSERT_EQUAL_FATAL(trace_gen(&gc->o, mem_write, &mb), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mb.p, mb.n, &t, &err), 0);
	for (size_t i = 1; i < t->nrecs; i++)
		ties += t->recs[i].ts_ns == t->recs[i - 1].ts_ns;
	CU_CHECK(ties > 1000, "only %zu equal times", ties);
	/* the file order is not the time order: the first records of two frames */
	{
		size_t off = 64, frames = 0, back = 0;
		uint64_t prev_first = 0;

		while (off + 8 <= mb.n) {
			uint32_t type, plen;

			memcpy(&type, mb.p + off, 4);
			memcpy(&plen, mb.p + off + 4, 4);
			if (type == 1 && plen) {
				uint64_t first;

				memcpy(&first, mb.p + off + 8, 8);
				back += frames && first < prev_first;
				prev_first = first;
				frames++;
			}
			off += 8 + ((plen + 7) & ~7u);
		}
		CU_CHECK(frames > 100 && back > 10, "%zu frames, %zu start before the previous one", frames, back);
	}
	free(mb.p);
}

/* Same options, same bytes: the stored expected reports (report-stream.sh) depend on it. */
static void test_generator_is_deterministic(void)
{
	struct trace_gen_opts o = { .records = 5000, .seed = 42, .disorder_pct = 5 };
	struct membuf a = { 0 }, b = { 0 };

	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &a), 0);
	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &b), 0);
	CU_ASSERT(a.n == b.n && memcmp(a.p, b.p, a.n) == 0);
	o.seed = 43;
	b.n = 0;
	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &b), 0);
	CU_ASSERT(a.n != b.n || memcmp(a.p, b.p, a.n) != 0);
	free(a.p);
	free(b.p);
}

/* The scan's read hook over a test's buffer; fails at byte fail_at (UINT64_MAX: never). */
struct mem_src {
	const uint8_t *p;
	size_t len;
	uint64_t fail_at;
	size_t reads;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mem_src *m = ctx;

	m->reads++;
	if (off + len > m->len)
		return -EIO;
	if (m->fail_at < off + len)
		return -EIO;
	memcpy(buf, m->p + off, len);
	return 0;
}

/* Scan buf both ways (from the buffer, and read chunk bytes at a time): the same index and words. */
static void check_scan_reads(const char *name, const uint8_t *buf, size_t len)
{
	static const size_t chunks[] = { 8, 100, 4096, 65536 };
	struct dut_trace_scan a = { 0 };
	struct dut_error ea = { { 0 } };
	int ra = dut_trace_scan(buf, len, &a, &ea);

	for (size_t i = 0; i < DUT_ARRAY_SIZE(chunks); i++) {
		struct mem_src m = { .p = buf, .len = len, .fail_at = UINT64_MAX };
		struct dut_trace_scan b = { .read = mem_read, .read_ctx = &m, .read_chunk = chunks[i] };
		struct dut_error eb = { { 0 } };
		int rb = dut_trace_scan(buf, len, &b, &eb);

		CU_CHECK(ra == rb && strcmp(ea.msg, eb.msg) == 0, "%s, read %zu at a time: %d \"%s\", mapped %d \"%s\"",
			 name, chunks[i], rb, eb.msg, ra, ea.msg);
		if (ra == 0 && rb == 0) {
			CU_CHECK(a.nblocks == b.nblocks && a.rec_size == b.rec_size && a.first_ts == b.first_ts &&
				 a.last_ts == b.last_ts &&
				 memcmp(a.blocks, b.blocks, a.nblocks * sizeof(*a.blocks)) == 0,
				 "%s, read %zu at a time: another block index", name, chunks[i]);
			check_meta(name, b.meta, a.meta);
			CU_CHECK(b.meta->valid_bytes == a.meta->valid_bytes && b.meta->nrecs == a.meta->nrecs,
				 "%s, read %zu at a time: %zu valid bytes, %zu records", name, chunks[i],
				 (size_t)b.meta->valid_bytes, (size_t)b.meta->nrecs);
			CU_CHECK(len <= chunks[i] || m.reads > 1, "%s: %zu bytes in %zu reads", name, len, m.reads);
		}
		free(b.blocks);
		dut_trace_free(b.meta);
	}
	free(a.blocks);
	dut_trace_free(a.meta);
}

/*
 * The streaming reader's scan reads the file (pread) rather than its
 * mapping: whatever the read size, it finds the same frames, blocks,
 * truncation and damage, in the same words, as over the mapped bytes; a
 * failed read says where.
 */
static void test_scan_reads_as_it_maps(void)
{
	for (int compact = 0; compact < 2; compact++) {
		for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
			const struct gen_case *gc = &cases[c];
			struct trace_gen_opts o;
			struct membuf mb = { 0 };
			size_t cut, len;
			char name[96];

			if (gc->o.records > 50000 || !case_variant(gc, compact, &o, &cut))
				continue;
			CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
			len = cut && cut < mb.n ? cut : mb.n;
			snprintf(name, sizeof(name), "%s (%s)", gc->name, compact ? "2.1" : "1.1");
			check_scan_reads(name, mb.p, len);
			if (len > 4096) {
				/* damage in the middle, and a tail of zeroes */
				memset(mb.p + len / 2, 0xff, 64);
				snprintf(name, sizeof(name), "%s (%s), damaged", gc->name, compact ? "2.1" : "1.1");
				check_scan_reads(name, mb.p, len);
				memset(mb.p + len / 2, 0, len - len / 2);
				snprintf(name, sizeof(name), "%s (%s), zero tail", gc->name, compact ? "2.1" : "1.1");
				check_scan_reads(name, mb.p, len);
				mb.p[len - 3] = 1;
				snprintf(name, sizeof(name), "%s (%s), zeroes then a byte", gc->name,
					 compact ? "2.1" : "1.1");
				check_scan_reads(name, mb.p, len);
			}
			free(mb.p);
		}
	}
	/* a read that fails names the byte */
	{
		struct trace_gen_opts o = { .records = 3000, .seed = 5, .compact = true };
		struct membuf mb = { 0 };
		struct mem_src m = { .fail_at = 20000 };
		struct dut_trace_scan b = { .read = mem_read, .read_ctx = &m, .read_chunk = 4096 };
		struct dut_error eb = { { 0 } };

		CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
		m.p = mb.p;
		m.len = mb.n;
		CU_ASSERT_EQUAL(dut_trace_scan(mb.p, mb.n, &b, &eb), -EIO);
		CU_CHECK(strstr(eb.msg, "cannot read the trace at byte ") && strstr(eb.msg, "Input/output error"),
			 "failed read: \"%s\"", eb.msg);
		CU_ASSERT_PTR_NULL(b.blocks);
		free(mb.p);
	}
}

/* A corrupt trace fails the same way through both readers. */
static void test_stream_rejects_what_the_loader_rejects(void)
{
	struct trace_gen_opts o = { .records = 3000, .seed = 5 };
	struct membuf mb = { 0 };
	struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
	struct dut_trace *t = NULL;
	struct dut_trace_stream *s = NULL;

	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
	memset(mb.p + 64, 0xff, 8); /* the first frame's type and length */
	CU_ASSERT_EQUAL(dut_trace_parse(mb.p, mb.n, &t, &e1), -EBADMSG);
	CU_ASSERT_EQUAL(dut_trace_stream_open_buf(mb.p, mb.n, &s, &e2), -EBADMSG);
	CU_ASSERT_STRING_EQUAL(e1.msg, e2.msg);
	CU_ASSERT_EQUAL(dut_trace_stream_open_buf("NOTATRACE", 9, &s, &e2), -EBADMSG);
	free(mb.p);
}

/*
 * A compact frame damaged late in a 2.1 trace (the scan does not decode
 * it: the merge finds it), read by a later time window's reader on its
 * thread: the report fails, and the caller's stream says why in the
 * loader's words, as with one builder.
 */
static void test_damage_in_a_later_window_is_the_streams_error(void)
{
	struct trace_gen_opts o = { .records = 400000, .seed = 13, .compact = true }; /* 3 blocks and more */
	struct membuf mb = { 0 };
	struct dut_trace *t = NULL;
	struct dut_error e1 = { { 0 } };
	size_t off, last_crec = 0;

	CU_ASSERT_EQUAL_FATAL(trace_gen(&o, mem_write, &mb), 0);
	/* the last CRECORDS frame before the end: its first record's ctrl byte gets the reserved bit */
	for (off = dut_le32_get(mb.p + 32); off + DUT_TRACE_FRAME_HDR_SIZE <= mb.n;) {
		uint32_t type = dut_le32_get(mb.p + off), plen = dut_le32_get(mb.p + off + 4);

		if (type == DUT_TRACE_FRAME_CRECORDS)
			last_crec = off;
		off += DUT_TRACE_FRAME_HDR_SIZE + ((plen + 7u) & ~7u);
	}
	CU_ASSERT_FATAL(last_crec > mb.n / 2);
	mb.p[last_crec + DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED] |= 0x80;
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(mb.p, mb.n, &t, &e1), -EBADMSG);
	for (enum cut_how how = 0; how < CUT_HOWS; how++) {
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		struct report *rep = NULL;
		struct dut_error e2 = { { 0 } };
		int r;

		if (how == CUT_AT_RECORD)
			continue; /* needs the loaded records */
		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(mb.p, mb.n, &s, &e2), 0);
		r = build_cut(s, NULL, how, NULL, &rep);
		dut_trace_stream_error(s, &e2);
		CU_CHECK(r == -EBADMSG && rep == NULL && strcmp(e1.msg, e2.msg) == 0,
			 "%s: %d \"%s\" (the loader: \"%s\")", cut_name[how], r, e2.msg, e1.msg);
	}
	free(mb.p);
}

/*
 * A rotated trace (a set of segments, what `dutfs --trace-max` leaves)
 * reported in 3 windows, each a clone of the set on its own thread: the
 * same report as one builder's, and the one-builder report counts every
 * record the set holds.  Written by the real writer, 4 segments of 1 MiB.
 */
static void test_rotated_set_in_windows(void)
{
	static const enum rep_by bys[] = { REP_BY_CLASS, REP_BY_FILE, REP_BY_PHASE, REP_BY_PROCESS };
	char dir[256], path[300];
	struct dut_trace_writer *w = NULL;
	struct dut_pg_file pg;
	struct report *rep[2] = { NULL, NULL };

	CU_ASSERT_EQUAL_FATAL(cu_tmpdir_make(dir, sizeof(dir), "report-set"), 0);
	snprintf(path, sizeof(path), "%s/t.dtr", dir);
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 1u << 17, .max_bytes = 4u << 20, .max_segments = 4,
		.fixed_records = true }, &w), 0);
	CU_ASSERT_EQUAL(dut_pg_classify("base/5/16384", DUT_PG_ROOT_AUTO, 0, &pg), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, 1, "base/5/16384", &pg), 0);
	(void)dut_trace_writer_mark(w, 1000, "load");
	for (uint64_t k = 0; k < 200000; k++) {
		/* runs of 4 sequential pages, then a jump: windows cut through runs */
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = 1000 + k * 1000, .op = k % 5 ? DUT_OP_READ :
			DUT_OP_WRITE, .len = 8192, .result = 8192, .file_id = 1, .pid = 100 + k % 3,
			.offset = (k / 4 * 7919 % 100003 * 4 + k % 4) * 8192, .lat_ns = 2000 + k % 7000 });
		if (k % 20000 == 19999)
			usleep(5000); /* let the writer drain */
	}
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_close(w), 0);
	for (unsigned i = 0; i < 2; i++) {
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		struct dut_error err = { { 0 } };
		uint64_t b[4] = { 0 }, first, last;

		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(path, &s, &err), 0);
		CU_ASSERT_FATAL(dut_trace_stream_meta(s)->segmented);
		dut_trace_stream_span(s, &first, &last);
		b[1] = first + (last - first) / 3;
		b[2] = first + (last - first) / 3 * 2;
		b[3] = UINT64_MAX;
		CU_ASSERT_EQUAL_FATAL(report_build_stream_windows(s, NULL, NULL, NULL, i ? 3 : 1, b, &rep[i]), 0);
	}
	CU_ASSERT(rep[0]->nrecs > 0 && rep[0]->nrecs < 200000); /* the oldest segments are gone */
	CU_ASSERT_EQUAL(rep[0]->phases[0].total.dir[REP_READ].ops + rep[0]->phases[0].total.dir[REP_WRITE].ops,
			rep[0]->nrecs);
	/* exact counters too: a percentage in the text can round one sequential read away */
	for (unsigned d = 0; d < 2; d++)
		CU_CHECK(memcmp(&rep[0]->phases[0].total.dir[d], &rep[1]->phases[0].total.dir[d],
				offsetof(struct rep_dirstats, lat)) == 0 && rep[0]->nfiles == rep[1]->nfiles &&
			 rep[1]->nfiles && memcmp(&rep[0]->files[0].st.dir[d], &rep[1]->files[0].st.dir[d],
						  offsetof(struct rep_dirstats, lat)) == 0,
			 "rotated set, %s: 3 windows count %" PRIu64 " sequential, one builder %" PRIu64,
			 d ? "writes" : "reads", rep[1]->phases[0].total.dir[d].seq_ops,
			 rep[0]->phases[0].total.dir[d].seq_ops);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(bys); i++) {
		_cleanup_free_ char *a = render_mem_human(rep[0], bys[i], 0);
		_cleanup_free_ char *c = render_mem_human(rep[1], bys[i], 0);

		CU_ASSERT_FATAL(a && c);
		CU_CHECK(strcmp(a, c) == 0, "rotated set, --by %s: 3 windows differ:\n--- one\n%s\n--- 3\n%s",
			 rep_by_name(bys[i]), a, c);
	}
	report_free(rep[0]);
	report_free(rep[1]);
	CU_ASSERT_EQUAL(cu_tmpdir_remove(dir), 0);
}

static const struct cu_test tests[] = {
	{ "scan_reads_as_it_maps", test_scan_reads_as_it_maps },
	{ "stream_gives_the_loaded_order_and_report", test_stream_gives_the_loaded_order_and_report },
	{ "compact_stream_gives_the_loaded_order_and_report", test_compact_stream_gives_the_loaded_order_and_report },
	{ "v2_0_stream_gives_the_loaded_order_and_report", test_v2_0_stream_gives_the_loaded_order_and_report },
	{ "compact_loads_as_fixed", test_compact_loads_as_fixed },
	{ "prefetched_stream_gives_the_loaded_order", test_prefetched_stream_gives_the_loaded_order },
	{ "compact_stream_order_at_every_decoded_cap", test_compact_stream_order_at_every_decoded_cap },
	{ "cases_are_out_of_order_in_the_file", test_cases_are_out_of_order_in_the_file },
	{ "generator_is_deterministic", test_generator_is_deterministic },
	{ "stream_rejects_what_the_loader_rejects", test_stream_rejects_what_the_loader_rejects },
	{ "streamed_export_equals_loaded", test_streamed_export_equals_loaded },
	{ "damage_in_a_later_window_is_the_streams_error", test_damage_in_a_later_window_is_the_streams_error },
	{ "rotated_set_in_windows", test_rotated_set_in_windows },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "report_stream", .tests = tests };
