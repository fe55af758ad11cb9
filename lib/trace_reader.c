/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace reader: dut_trace_parse() is pure (a byte buffer in, a struct out);
 * dut_trace_load() maps a file and parses it.  Rules (docs/trace-format.md):
 *   - bad magic, another major version, impossible header sizes: -EBADMSG;
 *   - a file that ends inside a frame is truncated (dutfs was killed, or the
 *     copy is partial): everything before that frame is returned, with
 *     ->truncated and ->valid_bytes;
 *   - a frame whose length field is absurd (> 64 MiB, not a whole number of
 *     records, inconsistent inner lengths), type 0, or a frame after the
 *     footer is corruption: -EBADMSG, whatever follows cannot be trusted;
 *   - an all-zero tail (what a crash can leave after delayed allocation) is
 *     treated as truncation at its first byte;
 *   - frame types this reader does not know are skipped (forward compatible);
 *   - a CSPAN frame (2.1) gives the time span of the CRECORDS frame right
 *     after it: the loader checks it against the records, the scan takes
 *     it instead of decoding them (the streaming merge checks them later).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_src.h"

#define MAX_REC_SIZE 4096u

void dut_trace_free(struct dut_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i].path);
	for (size_t i = 0; i < t->nmarkers; i++)
		free(t->markers[i].label);
	free(t->files);
	free(t->recs);
	free(t->markers);
	free(t->info);
	free(t);
}
DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)

/* Grow *arr (of *cap elements of size sz) to hold at least need elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Bottom-up stable merge sort (qsort is not guaranteed stable). */
static int stable_sort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	_cleanup_free_ uint8_t *tmp = NULL;
	uint8_t *src = base, *dst;

	if (n < 2)
		return 0;
	tmp = malloc(n * sz);
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				if (cmp(src + j * sz, src + i * sz) < 0)
					memcpy(dst + k++ * sz, src + j++ * sz, sz);
				else
					memcpy(dst + k++ * sz, src + i++ * sz, sz);
			}
			memcpy(dst + k * sz, src + i * sz, (mid - i) * sz);
			k += mid - i;
			memcpy(dst + k * sz, src + j * sz, (hi - j) * sz);
		}
		uint8_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * sz);
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct dut_trace_rec *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static int cmp_marker(const void *a, const void *b)
{
	const struct dut_trace_marker *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static int cmp_file(const void *a, const void *b)
{
	const struct dut_trace_file *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The scan's reads through scan->read: about the L2's size, so the bytes are parsed from it. */
#define SCAN_READ_CHUNK ((size_t)1 << 20)

struct parse {
	struct dut_trace *t;
	struct trace_src src;           /* the bytes */
	size_t cap_recs, cap_files, cap_markers;
	size_t info_len;
	uint32_t rec_size;
	/* scan mode (dut_trace_scan): count records and index them, keep none */
	struct dut_trace_scan *scan;
	size_t released;                /* scan: bytes handed to scan->release */
	bool eager;                     /* scan: decode CRECORDS frames with a span too */
	size_t lazy;                    /* scan: CRECORDS frames taken on their span, not decoded */
	/* the last CSPAN frame's span, for the frame at span_for (UINT64_MAX: none) */
	struct dut_trace_cspan span;
	uint64_t span_for;
};

static int parse_header(const uint8_t *p, size_t len, struct parse *ps, size_t *ret_hdr_size,
			struct dut_error *err)
{
	struct dut_trace_header *h = &ps->t->hdr;
	uint32_t hsize, rsize;

	if (len < 8 || memcmp(p, DUT_TRACE_MAGIC, 8) != 0) {
		if (len < 8 && memcmp(p, DUT_TRACE_MAGIC, len) == 0)
			dut_error_set(err, "the trace is only %zu bytes long: it ends inside its %u-byte header",
				      len, DUT_TRACE_HEADER_SIZE);
		else
			dut_error_set(err, "not a dutfs trace: it does not start with \"%s\"",
				      DUT_TRACE_MAGIC);
		return -EBADMSG;
	}
	if (len < DUT_TRACE_HEADER_SIZE) {
		dut_error_set(err, "the trace is only %zu bytes long: it ends inside its %u-byte header",
			      len, DUT_TRACE_HEADER_SIZE);
		return -EBADMSG;
	}
	h->version_major = dut_le16_get(p + 8);
	h->version_minor = dut_le16_get(p + 10);
	h->flags = dut_le32_get(p + 12);
	h->start_realtime_ns = dut_le64_get(p + 16);
	h->start_monotonic_ns = dut_le64_get(p + 24);
	hsize = dut_le32_get(p + 32);
	rsize = dut_le32_get(p + 36);
	if (h->version_major < DUT_TRACE_VERSION_MAJOR_OLDEST || h->version_major > DUT_TRACE_VERSION_MAJOR) {
		dut_error_set(err, "trace format version %u.%u: this dutlab reads versions %u.x to %u.x only",
			      h->version_major, h->version_minor, DUT_TRACE_VERSION_MAJOR_OLDEST,
			      DUT_TRACE_VERSION_MAJOR);
		return -EBADMSG;
	}
	if (hsize < DUT_TRACE_HEADER_SIZE || hsize % 8 || hsize > 65536) {
		dut_error_set(err, "corrupt trace header: header size %" PRIu32
			      " (expected a multiple of 8, at least %u)", hsize, DUT_TRACE_HEADER_SIZE);
		return -EBADMSG;
	}
	if (rsize < DUT_TRACE_REC_SIZE || rsize % 8 || rsize > MAX_REC_SIZE) {
		dut_error_set(err, "corrupt trace header: record size %" PRIu32
			      " (expected a multiple of 8, %u..%u)", rsize, DUT_TRACE_REC_SIZE, MAX_REC_SIZE);
		return -EBADMSG;
	}
	if (hsize > len) {
		dut_error_set(err, "the trace is only %zu bytes long: it ends inside its %" PRIu32
			      "-byte header", len, hsize);
		return -EBADMSG;
	}
	ps->rec_size = rsize;
	*ret_hdr_size = hsize;
	return 0;
}

/* Scan mode: the records' times go into the block index, the records stay in the file. */
static void scan_records(struct parse *ps, const uint8_t *p, size_t n, size_t frame_off)
{
	struct dut_trace_scan *sc = ps->scan;
	struct dut_trace_block *b = &sc->blocks[frame_off >> DUT_TRACE_BLOCK_SHIFT];

	for (size_t i = 0; i < n; i++) {
		uint64_t ts = dut_le64_get(p + i * ps->rec_size);

		if (ts < b->min_ts)
			b->min_ts = ts;
		if (ts > b->max_ts)
			b->max_ts = ts;
		b->nrecs++;
		if (ts < sc->first_ts)
			sc->first_ts = ts;
		if (ts > sc->last_ts)
			sc->last_ts = ts;
	}
	ps->t->nrecs += n;
}

static int parse_records(struct parse *ps, const uint8_t *p, uint32_t plen, size_t frame_off)
{
	struct dut_trace *t = ps->t;
	size_t n = plen / ps->rec_size;
	int r;

	if (ps->scan) {
		scan_records(ps, p, n, frame_off);
		return 0;
	}
	r = grow((void **)&t->recs, &ps->cap_recs, t->nrecs + n, sizeof(*t->recs));

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct dut_trace_rec *rec = &t->recs[t->nrecs++];

		dut_trace_rec_decode(p + i * ps->rec_size, rec);
		/* 1.0 wrote a reserved word there: whatever it holds, it is not a measurement */
		if (!dut_trace_hdr_has_dutfs_ns(&t->hdr))
			rec->dutfs_ns = 0;
	}
	return 0;
}

/* Scan mode: a CRECORDS frame of n records whose times span sp, into its block and the totals. */
static void scan_crecords_add(struct parse *ps, uint32_t n, const struct dut_trace_cspan *sp,
			      size_t frame_off)
{
	struct dut_trace_scan *sc = ps->scan;
	struct dut_trace_block *b = &sc->blocks[frame_off >> DUT_TRACE_BLOCK_SHIFT];

	if (sp->min_ts < b->min_ts)
		b->min_ts = sp->min_ts;
	if (sp->max_ts > b->max_ts)
		b->max_ts = sp->max_ts;
	if (sp->min_ts < sc->first_ts)
		sc->first_ts = sp->min_ts;
	if (sp->max_ts > sc->last_ts)
		sc->last_ts = sp->max_ts;
	b->nrecs += n;
	ps->t->nrecs += n;
}

/*
 * A CRECORDS frame: decoded whole, so that a damaged one is corruption
 * here, and the streaming merge can trust the bytes it decodes.  sp: its
 * CSPAN frame's span (2.1), or NULL; the records' times must be its.  The
 * scan takes a 2.1 frame on its span (unless eager): the merge decodes it
 * with the same checks before it gives any of its records.
 */
static int parse_crecords(struct parse *ps, const uint8_t *p, uint32_t plen, size_t frame_off,
			  const struct dut_trace_cspan *sp)
{
	struct dut_trace *t = ps->t;
	const uint8_t *q = p + DUT_TRACE_CFRAME_FIXED, *end = p + plen;
	struct dut_trace_cstate st;
	const struct dut_trace_rec *rec = &st.prev;
	struct dut_trace_cspan got = { .min_ts = UINT64_MAX, .max_ts = 0 };
	/* as in RECORDS frames: in a 1.0 trace the word is no measurement (the stream agrees) */
	bool keep_dutfs = dut_trace_hdr_has_dutfs_ns(&t->hdr);
	uint32_t n;
	int r;

	if (plen < DUT_TRACE_CFRAME_FIXED)
		return -EBADMSG;
	n = dut_le32_get(p);
	if (n == 0 || n > (plen - DUT_TRACE_CFRAME_FIXED) / DUT_TRACE_CREC_MIN)
		return -EBADMSG;
	if (ps->scan && sp && !ps->eager) {
		scan_crecords_add(ps, n, sp, frame_off);
		ps->lazy++;
		return 0;
	}
	if (!ps->scan) {
		r = grow((void **)&t->recs, &ps->cap_recs, t->nrecs + n, sizeof(*t->recs));
		if (r < 0)
			return r;
	}
	dut_trace_cstate_init(&st);
	for (uint32_t i = 0; i < n; i++) {
		if (dut_trace_crec_decode_hot(&q, end, &st) < 0)
			return -EBADMSG;
		if (rec->ts_ns < got.min_ts)
			got.min_ts = rec->ts_ns;
		if (rec->ts_ns > got.max_ts)
			got.max_ts = rec->ts_ns;
		if (!ps->scan) {
			t->recs[t->nrecs + i] = *rec;
			if (!keep_dutfs)
				t->recs[t->nrecs + i].dutfs_ns = 0;
		}
	}
	if (!dut_trace_cframe_decoded_ok(q, end, got.min_ts, got.max_ts, sp))
		return -EBADMSG; /* bytes after the last record, or times not the span's */
	if (ps->scan)
		scan_crecords_add(ps, n, &got, frame_off);
	else
		t->nrecs += n;
	return 0;
}

static int parse_file(struct parse *ps, const uint8_t *p, uint32_t plen)
{
	struct dut_trace *t = ps->t;
	int r = grow((void **)&t->files, &ps->cap_files, t->nfiles + 1, sizeof(*t->files));

	if (r < 0)
		return r;
	r = dut_trace_file_decode(p, plen, &t->files[t->nfiles]);
	if (r < 0)
		return r;
	t->nfiles++;
	return 0;
}

static int parse_marker(struct parse *ps, const uint8_t *p, uint32_t plen)
{
	struct dut_trace *t = ps->t;
	uint32_t llen;
	char *label;
	int r;

	if (plen < DUT_TRACE_MARKER_FIXED)
		return -EBADMSG;
	llen = dut_le32_get(p + 8);
	if (llen == 0 || llen > DUT_TRACE_MAX_LABEL || llen != plen - DUT_TRACE_MARKER_FIXED ||
	    memchr(p + DUT_TRACE_MARKER_FIXED, '\0', llen))
		return -EBADMSG;
	r = grow((void **)&t->markers, &ps->cap_markers, t->nmarkers + 1, sizeof(*t->markers));
	if (r < 0)
		return r;
	label = strndup((const char *)p + DUT_TRACE_MARKER_FIXED, llen);
	if (!label)
		return -ENOMEM;
	t->markers[t->nmarkers].ts_ns = dut_le64_get(p);
	t->markers[t->nmarkers].label = label;
	t->nmarkers++;
	return 0;
}

static int parse_info(struct parse *ps, const uint8_t *p, uint32_t plen)
{
	struct dut_trace *t = ps->t;
	char *s;

	if (memchr(p, '\0', plen))
		return -EBADMSG;
	s = realloc(t->info, ps->info_len + plen + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s + ps->info_len, p, plen);
	ps->info_len += plen;
	s[ps->info_len] = '\0';
	t->info = s;
	return 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Is the trace all zeroes from off on: 1 yes, 0 no, -errno when it cannot be read. */
static int rest_zero(struct parse *ps, size_t off)
{
	/* in memory: at once; read: a chunk at a time */
	const size_t step = ps->src.buf ? ps->src.len : ps->src.chunk;

	while (off < ps->src.len) {
		size_t n = ps->src.len - off < step ? ps->src.len - off : step;
		const uint8_t *p = trace_src_at(&ps->src, off, n);

		if (!p)
			return ps->src.err;
		if (!all_zero(p, n))
			return 0;
		off += n;
	}
	return 1;
}

static int read_failed(const struct parse *ps, size_t off, struct dut_error *err)
{
	dut_error_set(err, "cannot read the trace at byte %zu: %s", off, strerror(-ps->src.err));
	return ps->src.err;
}

static const char *frame_name(uint32_t type)
{
	switch (type) {
	case DUT_TRACE_FRAME_RECORDS: return "RECORDS";
	case DUT_TRACE_FRAME_FILE: return "FILE";
	case DUT_TRACE_FRAME_MARKER: return "MARKER";
	case DUT_TRACE_FRAME_INFO: return "INFO";
	case DUT_TRACE_FRAME_FOOTER: return "FOOTER";
	case DUT_TRACE_FRAME_SEGMENT: return "SEGMENT";
	case DUT_TRACE_FRAME_CRECORDS: return "CRECORDS";
	case DUT_TRACE_FRAME_CSPAN: return "CSPAN";
	default: return "unknown";
	}
}

/* One whole frame whose bytes are all in the buffer; frame_off: where its header is. */
static int parse_frame(struct parse *ps, uint32_t type, const uint8_t *p, uint32_t plen,
		       size_t frame_off)
{
	struct dut_trace *t = ps->t;

	switch (type) {
	case DUT_TRACE_FRAME_RECORDS:
		if (plen % ps->rec_size)
			return -EBADMSG;
		return parse_records(ps, p, plen, frame_off);
	case DUT_TRACE_FRAME_CRECORDS:
		return parse_crecords(ps, p, plen, frame_off, ps->span_for == frame_off ? &ps->span : NULL);
	case DUT_TRACE_FRAME_CSPAN:
		/* later minors may make it longer: the first 16 bytes are the span */
		if (plen < DUT_TRACE_CSPAN_SIZE)
			return -EBADMSG;
		ps->span.min_ts = dut_le64_get(p);
		ps->span.max_ts = dut_le64_get(p + 8);
		if (ps->span.min_ts > ps->span.max_ts)
			return -EBADMSG;
		ps->span_for = frame_off + DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(plen);
		return 0;
	case DUT_TRACE_FRAME_FILE:
		return parse_file(ps, p, plen);
	case DUT_TRACE_FRAME_MARKER:
		return parse_marker(ps, p, plen);
	case DUT_TRACE_FRAME_INFO:
		return parse_info(ps, p, plen);
	case DUT_TRACE_FRAME_FOOTER:
		if (plen < DUT_TRACE_FOOTER_SIZE)
			return -EBADMSG;
		t->has_footer = true;
		t->footer.records_written = dut_le64_get(p);
		t->footer.records_dropped = dut_le64_get(p + 8);
		t->footer.end_monotonic_ns = dut_le64_get(p + 16);
		return 0;
	case DUT_TRACE_FRAME_SEGMENT:
		if (plen < DUT_TRACE_SEGMENT_SIZE || t->segmented)
			return -EBADMSG; /* one per file, right after the header */
		t->segmented = true;
		t->seg.seq = dut_le32_get(p);
		t->seg.keep = dut_le32_get(p + 4);
		t->seg.records_before = dut_le64_get(p + 8);
		t->seg.dropped_before = dut_le64_get(p + 16);
		t->seg.max_bytes = dut_le64_get(p + 24);
		t->first_seq = t->seg.seq;
		t->records_gone = t->seg.records_before; /* read alone: the earlier ones are not here */
		return 0;
	default:
		return 0; /* a newer writer's frame: skip it */
	}
}

/*
 * Scan mode: note the block's first frame, and hand the pages of the
 * blocks behind it back (a trace larger than memory is read once, not kept).
 */
static void scan_frame_start(struct parse *ps, size_t off)
{
	struct dut_trace_scan *sc = ps->scan;
	struct dut_trace_block *b = &sc->blocks[off >> DUT_TRACE_BLOCK_SHIFT];

	if (b->first_frame == UINT64_MAX)
		b->first_frame = off;
	if (ps->src.rd)
		return; /* read, not mapped: no pages to hand back */
	if (sc->release && off - ps->released >= DUT_TRACE_RELEASE_BATCH) {
		sc->release(sc->release_ctx, ps->released, off - ps->released);
		ps->released = off;
	}
}

static int parse_frames(struct parse *ps, size_t off, struct dut_error *err)
{
	struct dut_trace *t = ps->t;
	const size_t len = ps->src.len;

	t->valid_bytes = off;
	while (off < len) {
		const uint8_t *p;
		uint32_t type, plen;
		size_t fsize;
		int r;

		if (len - off < DUT_TRACE_FRAME_HDR_SIZE) {
			t->truncated = true;
			dut_error_set(err, "trace truncated at byte %zu of %zu: partial frame header "
				      "(dutfs did not close it cleanly, or the file was cut)", off, len);
			return 0;
		}
		if (!(p = trace_src_at(&ps->src, off, DUT_TRACE_FRAME_HDR_SIZE)))
			return read_failed(ps, off, err);
		type = dut_le32_get(p);
		plen = dut_le32_get(p + 4);
		if (type == 0 && plen == 0 && (r = rest_zero(ps, off)) != 0) {
			if (r < 0)
				return read_failed(ps, off, err);
			t->truncated = true;
			dut_error_set(err, "trace truncated at byte %zu of %zu: the rest is zeroes "
				      "(the machine crashed while tracing?)", off, len);
			return 0;
		}
		if (type == 0 || plen > DUT_TRACE_MAX_PAYLOAD) {
			dut_error_set(err, "corrupt trace at byte %zu: frame type %" PRIu32
				      ", length %" PRIu32 " (max %u)", off, type, plen, DUT_TRACE_MAX_PAYLOAD);
			return -EBADMSG;
		}
		if (t->has_footer) {
			dut_error_set(err, "corrupt trace at byte %zu: %s frame after the footer",
				      off, frame_name(type));
			return -EBADMSG;
		}
		if (ps->span_for == off && type != DUT_TRACE_FRAME_CRECORDS) {
			dut_error_set(err, "corrupt trace at byte %zu: %s frame after a CSPAN frame "
				      "(which announces a CRECORDS frame)", off, frame_name(type));
			return -EBADMSG;
		}
		fsize = DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(plen);
		if (fsize > len - off) {
			t->truncated = true;
			dut_error_set(err, "trace truncated at byte %zu of %zu: %s frame of %zu bytes "
				      "is cut short (dutfs did not close it cleanly, or the file was cut)",
				      off, len, frame_name(type), fsize);
			return 0;
		}
		if (ps->scan)
			scan_frame_start(ps, off);
		if (!(p = trace_src_at(&ps->src, off, fsize)))
			return read_failed(ps, off, err);
		r = parse_frame(ps, type, p + DUT_TRACE_FRAME_HDR_SIZE, plen, off);
		if (r == -EBADMSG) {
			dut_trace_error_malformed(err, off, type, plen);
			return r;
		}
		if (r < 0) {
			dut_error_set(err, "out of memory reading the trace");
			return r;
		}
		off += fsize;
		t->valid_bytes = off;
	}
	/* a CSPAN frame last: the file was cut right after it, like after any whole frame */
	return 0;
}

void dut_trace_error_malformed(struct dut_error *err, uint64_t off, uint32_t type, uint32_t plen)
{
	dut_error_set(err, "corrupt trace at byte %" PRIu64 ": malformed %s frame (length %" PRIu32 ")",
		      off, frame_name(type), plen);
}

/* Sort files by id; for a repeated id the last entry in the file wins. */
static int files_finish(struct dut_trace *t)
{
	size_t k = 0;
	int r = stable_sort(t->files, t->nfiles, sizeof(*t->files), cmp_file);

	if (r < 0)
		return r;
	for (size_t i = 0; i < t->nfiles; i++) {
		if (i + 1 < t->nfiles && t->files[i + 1].id == t->files[i].id) {
			free(t->files[i].path);
			continue;
		}
		t->files[k++] = t->files[i];
	}
	t->nfiles = k;
	return 0;
}

int dut_trace_parse(const void *buf, size_t len, struct dut_trace **ret, struct dut_error *err)
{
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct parse ps = { .span_for = UINT64_MAX };
	size_t off;
	int r;

	if (!buf && len)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ps.t = t;
	ps.src = (struct trace_src){ .buf = buf ? buf : (const uint8_t *)"", .len = len };
	r = parse_header(ps.src.buf, len, &ps, &off, err);
	if (r < 0)
		return r;
	r = parse_frames(&ps, off, err);
	if (r < 0)
		return r;
	if (stable_sort(t->recs, t->nrecs, sizeof(*t->recs), cmp_rec) < 0 ||
	    stable_sort(t->markers, t->nmarkers, sizeof(*t->markers), cmp_marker) < 0 ||
	    files_finish(t) < 0) {
		dut_error_set(err, "out of memory reading the trace");
		return -ENOMEM;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

/*
 * One scan; eager: decode the CRECORDS frames that have a span too.
 * *ret_lazy: how many it took on their span alone.
 */
static int scan_pass(const void *buf, size_t len, struct dut_trace_scan *sc, bool eager,
		     size_t *ret_lazy, struct dut_error *err)
{
	_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
	struct parse ps = { .scan = sc, .eager = eager, .span_for = UINT64_MAX };
	const uint8_t *head;
	size_t off;
	int r;

	sc->meta = NULL;
	sc->blocks = NULL;
	sc->nblocks = 0;
	sc->first_ts = UINT64_MAX;
	sc->last_ts = 0;
	*ret_lazy = 0;
	if (!buf && !sc->read && len)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ps.t = t;
	if (sc->read && len)
		ps.src = (struct trace_src){ .len = len, .rd = sc->read, .ctx = sc->read_ctx,
					     .chunk = sc->read_chunk ? sc->read_chunk : SCAN_READ_CHUNK };
	else
		ps.src = (struct trace_src){ .buf = buf ? buf : (const uint8_t *)"", .len = len };
	head = trace_src_at(&ps.src, 0, len < DUT_TRACE_HEADER_SIZE ? len : DUT_TRACE_HEADER_SIZE);
	r = head ? parse_header(head, len, &ps, &off, err) : read_failed(&ps, 0, err);
	if (r < 0) {
		trace_src_free(&ps.src);
		return r;
	}
	sc->rec_size = ps.rec_size;
	sc->nblocks = (len >> DUT_TRACE_BLOCK_SHIFT) + 1;
	sc->blocks = malloc(sc->nblocks * sizeof(*sc->blocks));
	if (!sc->blocks) {
		trace_src_free(&ps.src);
		dut_error_set(err, "out of memory reading the trace");
		return -ENOMEM;
	}
	for (size_t i = 0; i < sc->nblocks; i++)
		sc->blocks[i] = (struct dut_trace_block){ .first_frame = UINT64_MAX, .min_ts = UINT64_MAX,
							    .max_ts = 0, .nrecs = 0 };
	r = parse_frames(&ps, off, err);
	trace_src_free(&ps.src);
	*ret_lazy = ps.lazy;
	if (r >= 0 && sc->release && !sc->read && t->valid_bytes > ps.released)
		sc->release(sc->release_ctx, ps.released, t->valid_bytes - ps.released);
	if (r >= 0 && (stable_sort(t->markers, t->nmarkers, sizeof(*t->markers), cmp_marker) < 0 ||
		       files_finish(t) < 0)) {
		dut_error_set(err, "out of memory reading the trace");
		r = -ENOMEM;
	}
	if (r < 0) {
		free(sc->blocks);
		sc->blocks = NULL;
		sc->nblocks = 0;
		return r;
	}
	if (!t->nrecs)
		sc->first_ts = sc->last_ts = 0;
	sc->meta = TAKE_PTR(t);
	return 0;
}

/*
 * A corrupt frame after CRECORDS frames taken on their span: the loader
 * would have stopped at the first damaged one of those, if any, so the
 * scan is repeated decoding them all, to refuse the trace in its words.
 * Only on that error path; a good trace is scanned once.
 */
int dut_trace_scan(const void *buf, size_t len, struct dut_trace_scan *sc, struct dut_error *err)
{
	size_t lazy;
	int r = scan_pass(buf, len, sc, false, &lazy, err);

	if (r == -EBADMSG && lazy)
		r = scan_pass(buf, len, sc, true, &lazy, err);
	return r;
}

int dut_trace_load(const char *path, struct dut_trace **ret, struct dut_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	void *map;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		dut_error_set(err, "cannot open trace %s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		dut_error_set(err, "cannot stat trace %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		dut_error_set(err, "trace %s is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size == 0)
		return dut_trace_parse(NULL, 0, ret, err);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		dut_error_set(err, "cannot map trace %s: %s", path, strerror(-r));
		return r;
	}
	r = dut_trace_parse(map, (size_t)st.st_size, ret, err);
	munmap(map, (size_t)st.st_size);
	return r;
}

const struct dut_trace_file *dut_trace_file_by_id(const struct dut_trace *t, uint32_t id)
{
	size_t lo = 0, hi = t->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->files[mid].id == id)
			return &t->files[mid];
		if (t->files[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
