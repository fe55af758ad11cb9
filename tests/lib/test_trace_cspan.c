/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace format 2.1 (docs/trace-format.md "CSPAN"): a CSPAN frame before a
 * CRECORDS frame gives its records' earliest and latest time, so that the
 * streaming reader's scan need not decode them.  The writer writes them
 * right, a 2.1 trace reads the same through the loader and the stream, a
 * stored 2.0 trace still reads, and a frame whose span lies, whose records
 * do not decode or leave bytes over is refused by the loader and, found
 * only in the merge, by the stream with the same error and message: in the
 * caller's thread, on the merge's own thread, with its records kept
 * encoded, and through a segment set.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/splitmix.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_tune.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)
DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)

static char tmpdir[256];

static int suite_init(void)
{
	return cu_tmpdir_make(tmpdir, sizeof(tmpdir), "tracespan");
}

static int suite_cleanup(void)
{
	return cu_tmpdir_remove(tmpdir);
}

static bool rec_eq(const struct dut_trace_rec *a, const struct dut_trace_rec *b)
{
	return a->ts_ns == b->ts_ns && a->offset == b->offset && a->lat_ns == b->lat_ns &&
	       a->len == b->len && a->result == b->result && a->file_id == b->file_id &&
	       a->pid == b->pid && a->op == b->op && a->flags == b->flags && a->dutfs_ns == b->dutfs_ns;
}

/* ---- traces made here, frame by frame ---- */

#define NFRAMES 6
#define FRAME_RECS 200

/* A trace image and where its frames are. */
struct img {
	uint8_t *b;
	size_t len, cap;
	size_t span_off[NFRAMES];    /* the CSPAN frame (2.1) */
	size_t crec_off[NFRAMES];    /* the CRECORDS frame */
};

static void put(struct img *im, const void *p, size_t n)
{
	if (im->len + n > im->cap) {
		im->cap = (im->len + n) * 2;
		im->b = realloc(im->b, im->cap);
		CU_ASSERT_FATAL(im->b != NULL);
	}
	memcpy(im->b + im->len, p, n);
	im->len += n;
}

/* Record i of frame f: times rise with the frame, go back now and then (another thread's run). */
static void rec_of(unsigned f, unsigned i, struct dut_trace_rec *r)
{
	uint64_t x = dut_mix64((uint64_t)f << 32 | i);

	*r = (struct dut_trace_rec){
		.ts_ns = 1000000 + (uint64_t)f * 150000 + (uint64_t)(i % 70) * 1000 + x % 900,
		.offset = (uint64_t)i * 8192, .lat_ns = x % 100000, .len = 8192, .result = 8192,
		.file_id = (uint32_t)(x % 5), .pid = 100 + (uint32_t)(x % 3), .op = DUT_OP_READ,
		.dutfs_ns = (uint32_t)(x % 5000),
	};
}

/*
 * NFRAMES frames of FRAME_RECS records; spans: each CRECORDS frame after its
 * CSPAN frame (a 2.1 trace), else none (2.0).  A MARKER and a FILE frame in
 * between, a footer at the end.
 */
static void build(struct img *im, bool spans)
{
	struct dut_trace_header h = { .version_major = 2, .version_minor = spans ? 1 : 0,
				      .start_monotonic_ns = 1000000 };
	uint8_t hdr[DUT_TRACE_HEADER_SIZE], ft[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE];
	uint8_t *f = NULL;
	size_t flen = 0;

	memset(im, 0, sizeof(*im));
	dut_trace_header_encode(&h, hdr);
	put(im, hdr, sizeof(hdr));
	for (unsigned k = 0; k < NFRAMES; k++) {
		static const uint8_t zero[8];
		uint8_t recs[FRAME_RECS * DUT_TRACE_CREC_MAX], ch[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED];
		uint8_t sp[DUT_TRACE_CSPAN_FRAME];
		struct dut_trace_cspan span = { UINT64_MAX, 0 };
		struct dut_trace_cstate st;
		size_t rlen = 0, pad;

		dut_trace_cstate_init(&st);
		for (unsigned i = 0; i < FRAME_RECS; i++) {
			struct dut_trace_rec r;

			rec_of(k, i, &r);
			rlen += dut_trace_crec_encode(&st, &r, recs + rlen);
			span.min_ts = r.ts_ns < span.min_ts ? r.ts_ns : span.min_ts;
			span.max_ts = r.ts_ns > span.max_ts ? r.ts_ns : span.max_ts;
		}
		if (spans) {
			im->span_off[k] = im->len;
			dut_trace_frame_cspan(&span, sp);
			put(im, sp, sizeof(sp));
		}
		im->crec_off[k] = im->len;
		pad = dut_trace_cframe_hdr(ch, FRAME_RECS, rlen);
		put(im, ch, sizeof(ch));
		put(im, recs, rlen);
		put(im, zero, pad);
		if (k == 2) {
			CU_ASSERT_EQUAL_FATAL(dut_trace_frame_marker(1200000, "phase-1", &f, &flen), 0);
			put(im, f, flen);
			free(f);
			CU_ASSERT_EQUAL_FATAL(dut_trace_frame_file(3, "base/5/16384", NULL, &f, &flen), 0);
			put(im, f, flen);
			free(f);
		}
	}
	dut_trace_frame_footer(&(struct dut_trace_footer){ .records_written = NFRAMES * FRAME_RECS }, ft);
	put(im, ft, sizeof(ft));
}

/* How the stream reads: in the caller's thread, on its own thread, records kept encoded. */
enum way { WAY_DIRECT, WAY_PIPE, WAY_ENCODED, WAYS };
static const char *const way_name[] = { "direct", "merge thread", "kept encoded" };

/*
 * Open the image as a stream read way w and read it to the end or to an
 * error: 0 or the error, *ret_got the records read, *ret_open the open's
 * result, err2 the open's message, then the merge's (dut_trace_stream_error).
 */
static int stream_read(const struct img *im, size_t len, enum way w, const struct dut_trace *t,
		       int *ret_open, size_t *ret_got, size_t *ret_bad, struct dut_error *err2)
{
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
	const struct dut_trace_rec *v;
	size_t n;
	int r;

	*ret_got = *ret_bad = 0;
	*ret_open = dut_trace_stream_open_buf(im->b, len, &s, err2);
	if (*ret_open < 0)
		return *ret_open;
	if (w == WAY_PIPE)
		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_prefetch(s), 0);
	if (w == WAY_ENCODED)
		dut_trace_stream_set_decoded_cap(s, 0);
	while ((r = dut_trace_stream_next(s, &v, &n)) == 0 && n) {
		for (size_t i = 0; t && i < n && *ret_got + i < t->nrecs; i++)
			*ret_bad += !rec_eq(&v[i], &t->recs[*ret_got + i]);
		*ret_got += n;
	}
	dut_trace_stream_error(s, err2);
	if (r < 0) {
		const struct dut_trace_rec *v2;
		size_t n2 = 99;
		int r2 = dut_trace_stream_next(s, &v2, &n2);

		/* an error stays: the merge does not go on past the frame */
		CU_CHECK(r2 == r, "%s: the next call after error %d gave %d (%zu records)", way_name[w], r,
			 r2, n2);
	}
	return r;
}

static void test_cspan_trace_reads_like_its_records(void)
{
	struct img im;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	size_t bad = 0;

	build(&im, true);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(im.b, im.len, &t, &err), 0);
	CU_ASSERT_EQUAL(t->hdr.version_minor, 1);
	CU_ASSERT_EQUAL_FATAL(t->nrecs, NFRAMES * FRAME_RECS);
	CU_ASSERT(t->has_footer && !t->truncated && t->valid_bytes == im.len && t->nmarkers == 1 &&
		  t->nfiles == 1);
	for (size_t i = 1; i < t->nrecs; i++)
		bad += t->recs[i - 1].ts_ns > t->recs[i].ts_ns;
	CU_CHECK(bad == 0, "%zu records out of order", bad);
	for (enum way w = 0; w < WAYS; w++) {
		struct dut_error e2 = { { 0 } };
		size_t got, nbad;
		int ro, r = stream_read(&im, im.len, w, t, &ro, &got, &nbad, &e2);

		CU_CHECK(ro == 0 && r == 0 && got == t->nrecs && nbad == 0 && !e2.msg[0],
			 "%s: open %d, merge %d \"%s\", %zu records, %zu differ", way_name[w], ro, r, e2.msg,
			 got, nbad);
	}
	/* the span is the stream's first and last time */
	{
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		uint64_t first, last;

		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(im.b, im.len, &s, &err), 0);
		dut_trace_stream_span(s, &first, &last);
		CU_ASSERT_EQUAL(first, t->recs[0].ts_ns);
		CU_ASSERT_EQUAL(last, t->recs[t->nrecs - 1].ts_ns);
		CU_ASSERT_EQUAL(dut_trace_stream_meta(s)->nrecs, t->nrecs);
	}
	free(im.b);
}

/* The same records without spans (2.0) read the same: the spans change only the scan. */
static void test_v2_0_frames_read_like_v2_1(void)
{
	struct img a, b;
	_cleanup_(dut_trace_freep) struct dut_trace *ta = NULL, *tb = NULL;
	struct dut_error err = { { 0 } };
	size_t bad = 0;

	build(&a, true);
	build(&b, false);
	CU_ASSERT_EQUAL(a.len, b.len + NFRAMES * DUT_TRACE_CSPAN_FRAME);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(a.b, a.len, &ta, &err), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(b.b, b.len, &tb, &err), 0);
	CU_ASSERT_EQUAL_FATAL(ta->nrecs, tb->nrecs);
	for (size_t i = 0; i < ta->nrecs; i++)
		bad += !rec_eq(&ta->recs[i], &tb->recs[i]);
	CU_CHECK(bad == 0, "%zu records differ", bad);
	for (enum way w = 0; w < WAYS; w++) {
		struct dut_error e2 = { { 0 } };
		size_t got, nbad;
		int ro, r = stream_read(&b, b.len, w, tb, &ro, &got, &nbad, &e2);

		CU_CHECK(ro == 0 && r == 0 && got == tb->nrecs && nbad == 0, "2.0, %s: open %d, merge %d, "
			 "%zu records, %zu differ", way_name[w], ro, r, got, nbad);
	}
	free(a.b);
	free(b.b);
}

/*
 * tests/lib/fixtures/trace/v2.0-gen.dtr: written by trace-gen --compact of
 * dutlab 2.0 (README.md there), no CSPAN frame: it reads, through both
 * readers alike.
 */
static void test_stored_v2_0_trace_reads(void)
{
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	_cleanup_free_ char *buf = NULL;
	struct dut_error err = { { 0 } };
	char path[512];
	struct img im = { 0 };
	size_t len = 0, spans = 0, crecs = 0;

	snprintf(path, sizeof(path), "%s/tests/lib/fixtures/trace/v2.0-gen.dtr", cu_source_root());
	CU_ASSERT_EQUAL_FATAL(dut_read_small_file(path, SIZE_MAX, &buf, &len), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(buf, len, &t, &err), 0);
	CU_ASSERT(t->hdr.version_major == 2 && t->hdr.version_minor == 0);
	CU_ASSERT_EQUAL(t->nrecs, 3000);
	CU_ASSERT(t->has_footer && t->nmarkers == 2);
	for (size_t off = DUT_TRACE_HEADER_SIZE; off + 8 <= len;) {
		uint32_t type = dut_le32_get((uint8_t *)buf + off), plen = dut_le32_get((uint8_t *)buf + off + 4);

		spans += type == DUT_TRACE_FRAME_CSPAN;
		crecs += type == DUT_TRACE_FRAME_CRECORDS;
		off += 8 + dut_trace_pad8(plen);
	}
	CU_CHECK(spans == 0 && crecs > 3, "%zu CSPAN and %zu CRECORDS frames", spans, crecs);
	im.b = (uint8_t *)buf;
	for (enum way w = 0; w < WAYS; w++) {
		struct dut_error e2 = { { 0 } };
		size_t got, nbad;
		int ro, r = stream_read(&im, len, w, t, &ro, &got, &nbad, &e2);

		CU_CHECK(ro == 0 && r == 0 && got == t->nrecs && nbad == 0, "%s: open %d, merge %d, "
			 "%zu records, %zu differ", way_name[w], ro, r, got, nbad);
	}
}

/* ---- damage ---- */

enum harm { LIE_MIN_UP, LIE_MIN_DOWN, LIE_MAX_UP, LIE_MAX_DOWN, NO_DECODE, BYTES_OVER, RECORD_MORE, HARMS };

static const char *const harm_name[] = {
	"span min later than the records'", "span min earlier", "span max later", "span max earlier",
	"a record that does not decode", "bytes over after the last record",
	"one record more than the bytes hold",
};

/* Damage frame k of a 2.1 image as harm h says. */
static void harm(struct img *im, unsigned k, enum harm h)
{
	uint8_t *sp = im->b + im->span_off[k] + DUT_TRACE_FRAME_HDR_SIZE;
	uint8_t *cf = im->b + im->crec_off[k];

	switch (h) {
	case LIE_MIN_UP: dut_le64_put(sp, dut_le64_get(sp) + 1); break;
	case LIE_MIN_DOWN: dut_le64_put(sp, dut_le64_get(sp) - 1); break;
	case LIE_MAX_UP: dut_le64_put(sp + 8, dut_le64_get(sp + 8) + 1); break;
	case LIE_MAX_DOWN: dut_le64_put(sp + 8, dut_le64_get(sp + 8) - 1); break;
	case NO_DECODE: cf[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED] |= 0x80; break; /* reserved bit */
	case BYTES_OVER:
		/* one record fewer than there are: the last one's bytes are over */
		dut_le32_put(cf + DUT_TRACE_FRAME_HDR_SIZE, FRAME_RECS - 1);
		break;
	case RECORD_MORE: dut_le32_put(cf + DUT_TRACE_FRAME_HDR_SIZE, FRAME_RECS + 1); break;
	default: break;
	}
}

/*
 * Every harm to every frame: the loader refuses with "malformed CRECORDS
 * frame" at that frame; the stream opens (the scan does not decode it) and
 * its merge fails with the same error and message, every way it can read,
 * and the same again when asked once more.
 */
static void test_damaged_frame_found_by_the_merge_in_the_loaders_words(void)
{
	size_t checked = 0;

	for (unsigned k = 0; k < NFRAMES; k++) {
		for (enum harm h = 0; h < HARMS; h++) {
			_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
			struct dut_error e1 = { { 0 } };
			char want[128];
			struct img im;
			int r;

			build(&im, true);
			harm(&im, k, h);
			snprintf(want, sizeof(want), "corrupt trace at byte %zu: malformed CRECORDS frame (length %u)",
				 im.crec_off[k], dut_le32_get(im.b + im.crec_off[k] + 4));
			r = dut_trace_parse(im.b, im.len, &t, &e1);
			CU_CHECK(r == -EBADMSG && !strcmp(e1.msg, want), "frame %u, %s: loader %d \"%s\"", k,
				 harm_name[h], r, e1.msg);
			for (enum way w = 0; w < WAYS; w++) {
				struct dut_error e2 = { { 0 } };
				size_t got, nbad;
				int ro, r2 = stream_read(&im, im.len, w, NULL, &ro, &got, &nbad, &e2);

				CU_CHECK(ro == 0 && r2 == -EBADMSG && !strcmp(e2.msg, e1.msg),
					 "frame %u, %s, %s: open %d, merge %d \"%s\" (loader \"%s\")", k,
					 harm_name[h], way_name[w], ro, r2, e2.msg, e1.msg);
				checked++;
			}
			free(im.b);
		}
	}
	CU_ASSERT_EQUAL(checked, NFRAMES * HARMS * WAYS);
}

/*
 * A damaged 2.1 frame, then a frame the scan refuses: the loader names the
 * first; so must the stream, at open (the scan decodes the spanned frames
 * again to find it).
 */
static void test_later_corruption_names_the_first_damaged_frame(void)
{
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
	struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
	struct img im;

	build(&im, true);
	harm(&im, 1, LIE_MAX_UP);
	dut_le32_put(im.b + im.span_off[4], 0); /* frame type 0: corrupt */
	CU_ASSERT_EQUAL(dut_trace_parse(im.b, im.len, &t, &e1), -EBADMSG);
	CU_ASSERT_EQUAL(dut_trace_stream_open_buf(im.b, im.len, &s, &e2), -EBADMSG);
	CU_CHECK(!strcmp(e1.msg, e2.msg) && strstr(e1.msg, "malformed CRECORDS"), "loader \"%s\", stream \"%s\"",
		 e1.msg, e2.msg);
	free(im.b);
}

/* The CSPAN frame's own rules: both readers alike, at open. */
static void test_cspan_frame_rules(void)
{
	static const struct {
		const char *what;
		int want;              /* 0: reads; 1: reads, truncated; else the error */
		const char *msg;       /* in the message */
	} rows[] = {
		{ "min after max", -EBADMSG, "malformed CSPAN frame" },
		{ "payload shorter than 16 bytes", -EBADMSG, "malformed CSPAN frame" },
		{ "followed by a MARKER frame", -EBADMSG, "MARKER frame after a CSPAN frame" },
		{ "the last whole frame (cut after it)", 0, "" },
		{ "cut inside the CRECORDS frame after it", 1, "CRECORDS frame" },
		{ "longer payload (a later minor's)", 0, "" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
		struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
		struct img im;
		size_t len;
		int r, r2;

		build(&im, true);
		len = im.len;
		switch (i) {
		case 0:
			dut_le64_put(im.b + im.span_off[3] + 8, dut_le64_get(im.b + im.span_off[3] + 16) + 1);
			break;
		case 1:
			dut_le32_put(im.b + im.span_off[3] + 4, 8);
			break;
		case 2:
			/* the marker after frame 2 moves in front of frame 3's CRECORDS: swap is simpler as a retype */
			dut_le32_put(im.b + im.crec_off[3], DUT_TRACE_FRAME_MARKER);
			break;
		case 3:
			len = im.crec_off[5];
			break;
		case 4:
			len = im.crec_off[5] + 100;
			break;
		case 5: {
			/* a 24-byte span payload: rebuild with the CSPAN frame of frame 0 grown by 8 zero bytes */
			uint8_t *b = malloc(im.len + 8);
			size_t at = im.crec_off[0];

			CU_ASSERT_FATAL(b != NULL);
			memcpy(b, im.b, at);
			memset(b + at, 0, 8);
			memcpy(b + at + 8, im.b + at, im.len - at);
			dut_le32_put(b + im.span_off[0] + 4, 24);
			free(im.b);
			im.b = b;
			len = im.len + 8;
			break;
		}
		}
		r = dut_trace_parse(im.b, len, &t, &e1);
		r2 = dut_trace_stream_open_buf(im.b, len, &s, &e2);
		CU_CHECK(r == r2 && !strcmp(e1.msg, e2.msg), "%s: loader %d \"%s\", stream %d \"%s\"", rows[i].what,
			 r, e1.msg, r2, e2.msg);
		if (rows[i].want < 0)
			CU_CHECK(r == rows[i].want && strstr(e1.msg, rows[i].msg), "%s: %d \"%s\"", rows[i].what, r,
				 e1.msg);
		else
			CU_CHECK(r == 0 && t->truncated == (rows[i].want == 1) && strstr(e1.msg, rows[i].msg) &&
				 t->nrecs == (i == 3 || i == 4 ? 5u : (size_t)NFRAMES) * FRAME_RECS,
				 "%s: %d truncated %d, %zu records \"%s\"", rows[i].what, r, t ? t->truncated : 0,
				 t ? t->nrecs : 0, e1.msg);
		if (r == 0 && r2 == 0) {
			struct dut_error e3 = { { 0 } };
			size_t got, nbad;
			int ro, r3 = stream_read(&im, len, WAY_DIRECT, t, &ro, &got, &nbad, &e3);

			CU_CHECK(r3 == 0 && got == t->nrecs && nbad == 0, "%s: merge %d \"%s\", %zu records",
				 rows[i].what, r3, e3.msg, got);
		}
		free(im.b);
	}
}

/* A segment set: a part's merge error is the set's, with its message. */
static void test_segment_set_carries_a_parts_error(void)
{
	struct dut_trace_stream **parts = calloc(2, sizeof(*parts)), *set = NULL;
	struct dut_error e1 = { { 0 } }, e2 = { { 0 } };
	struct dut_trace *t = NULL;
	const struct dut_trace_rec *v;
	struct img good, bad;
	size_t n, got = 0;
	int r;

	CU_ASSERT_FATAL(parts != NULL);
	build(&good, true);
	build(&bad, true);
	harm(&bad, 4, NO_DECODE);
	CU_ASSERT_EQUAL(dut_trace_parse(bad.b, bad.len, &t, &e1), -EBADMSG);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(good.b, good.len, &parts[0], &e2), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(bad.b, bad.len, &parts[1], &e2), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_set(parts, 2, NULL, &set), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_prefetch(set), 0);
	while ((r = dut_trace_stream_next(set, &v, &n)) == 0 && n)
		got += n;
	dut_trace_stream_error(set, &e2);
	CU_CHECK(r == -EBADMSG && !strcmp(e1.msg, e2.msg), "set: %d \"%s\" after %zu records, "
		 "loader of the part \"%s\"", r, e2.msg, got, e1.msg);
	dut_trace_stream_close(set);
	free(good.b);
	free(bad.b);
}

/* ---- the writer ---- */

/*
 * The trace writer's 2.1 trace: a CSPAN frame before every CRECORDS frame of
 * DUT_TRACE_CSPAN_MIN_RECS records or more, none before a smaller one, each
 * span the frame's times; loader and stream read the same.
 */
static void test_writer_writes_true_spans(void)
{
	char path[300];
	struct dut_trace_writer *w = NULL;
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	_cleanup_free_ char *buf = NULL;
	struct dut_error err = { { 0 } };
	size_t len = 0, spanned = 0, plain = 0, wrong = 0, nrecs = 0;
	uint64_t span_for = UINT64_MAX;
	struct dut_trace_cspan sp = { 0 };
	struct img im = { 0 };

	snprintf(path, sizeof(path), "%s/w.dtr", tmpdir);
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 1u << 14, .flush_interval_ns = 1000000 }, &w), 0);
	for (unsigned i = 0; i < 5000; i++) {
		struct dut_trace_rec r;

		rec_of(i / 700, i % 700, &r);
		dut_trace_emit(w, &r);
		if (i == 10 || i == 4000) {
			uint64_t written = 0;

			/* a small round (10 records: no span), then big ones */
			for (unsigned k = 0; k < 30000 && written <= i; k++) {
				struct timespec ts = { 0, 1000000 };

				nanosleep(&ts, NULL);
				dut_trace_writer_counts(w, &written, NULL);
			}
		}
	}
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(dut_read_small_file(path, SIZE_MAX, &buf, &len), 0);
	CU_ASSERT_EQUAL(dut_le16_get((uint8_t *)buf + 10), 1);
	for (size_t off = DUT_TRACE_HEADER_SIZE; off + 8 <= len;) {
		const uint8_t *b = (const uint8_t *)buf + off;
		uint32_t type = dut_le32_get(b), plen = dut_le32_get(b + 4);

		if (type == DUT_TRACE_FRAME_CSPAN) {
			sp.min_ts = dut_le64_get(b + 8);
			sp.max_ts = dut_le64_get(b + 16);
			span_for = off + 8 + dut_trace_pad8(plen);
		} else if (type == DUT_TRACE_FRAME_CRECORDS) {
			const uint8_t *q = b + 12, *end = b + 8 + plen;
			uint32_t n = dut_le32_get(b + 8);
			struct dut_trace_cstate st;
			uint64_t mn = UINT64_MAX, mx = 0;

			dut_trace_cstate_init(&st);
			for (uint32_t i = 0; i < n; i++) {
				CU_ASSERT_EQUAL_FATAL(dut_trace_crec_decode(&q, end, &st), 0);
				mn = st.prev.ts_ns < mn ? st.prev.ts_ns : mn;
				mx = st.prev.ts_ns > mx ? st.prev.ts_ns : mx;
			}
			nrecs += n;
			if (span_for == off) {
				spanned++;
				wrong += n < DUT_TRACE_CSPAN_MIN_RECS || sp.min_ts != mn || sp.max_ts != mx;
			} else {
				plain++;
				wrong += n >= DUT_TRACE_CSPAN_MIN_RECS;
			}
		}
		off += 8 + dut_trace_pad8(plen);
	}
	CU_CHECK(nrecs == 5000 && spanned >= 1 && plain >= 1 && wrong == 0,
		 "%zu records, %zu frames with a span, %zu without, %zu wrong", nrecs, spanned, plain, wrong);
	CU_ASSERT_EQUAL_FATAL(dut_trace_parse(buf, len, &t, &err), 0);
	im.b = (uint8_t *)buf;
	for (enum way w2 = 0; w2 < WAYS; w2++) {
		struct dut_error e2 = { { 0 } };
		size_t got, nbad;
		int ro, r = stream_read(&im, len, w2, t, &ro, &got, &nbad, &e2);

		CU_CHECK(ro == 0 && r == 0 && got == 5000 && nbad == 0, "%s: open %d, merge %d, %zu records, "
			 "%zu differ", way_name[w2], ro, r, got, nbad);
	}
}

static const struct cu_test tests[] = {
	{ "cspan_trace_reads_like_its_records", test_cspan_trace_reads_like_its_records },
	{ "v2_0_frames_read_like_v2_1", test_v2_0_frames_read_like_v2_1 },
	{ "stored_v2_0_trace_reads", test_stored_v2_0_trace_reads },
	{ "damaged_frame_found_by_the_merge_in_the_loaders_words",
	  test_damaged_frame_found_by_the_merge_in_the_loaders_words },
	{ "later_corruption_names_the_first_damaged_frame", test_later_corruption_names_the_first_damaged_frame },
	{ "cspan_frame_rules", test_cspan_frame_rules },
	{ "segment_set_carries_a_parts_error", test_segment_set_carries_a_parts_error },
	{ "writer_writes_true_spans", test_writer_writes_true_spans },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = {
	.name = "trace_cspan", .init = suite_init, .cleanup = suite_cleanup, .tests = tests,
};
