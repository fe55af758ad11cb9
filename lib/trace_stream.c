/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader, pass two: the records of a scanned trace in timestamp
 * order (ties in file order), merged without copying them.  Pure: the
 * bytes come from a buffer; dropping pages behind the merge is the
 * caller's release hook (trace_stream_linux.c maps the file).
 *
 * Why this order is dut_trace_load()'s: a record's key is (ts_ns, byte
 * offset in the file); the stable sort orders by exactly that key.  The
 * merge keeps runs, each a chain of segments (maximal stretches of a
 * RECORDS frame whose times do not go down) in file order whose times do
 * not go down either, so each run is sorted by key, and it always emits the
 * smallest head key (a loser tree over the runs: trace_stream_merge.c).  A block of the file is split into segments (read)
 * only when the smallest head key reaches the earliest record of that
 * block and of every block after it (suffix minimum, with the block's
 * start as the offset): until then nothing unread can come first.
 *
 * A window [lo, hi) (trace_stream_window.c) reads only what it needs: the
 * blocks whose latest record is before lo are not split, a split segment
 * loses its records before lo (its times do not go down, so they are a
 * prefix), the split keys are taken over the blocks read and clamped to lo,
 * and the split key never exceeds (hi, 0), where the merge stops.
 *
 * Memory: the scan's index, plus one struct seg per segment of the blocks
 * being merged, one struct run (a leaf of the tree) per run, and decoded
 * CRECORDS frames, in use or kept for reuse, within decoded_cap.  A writer thread's records are
 * written in their time order, frame after frame, so the runs are about
 * the writer threads and the blocks being merged are the few around the
 * merge's time; a record written long after its time (an open waiting for
 * its reply) makes the merge read the blocks up to it early.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"
#include "lib/trace_stream_tune.h"

/*
 * st: NULL for a stretch of a RECORDS frame, else the coder state after
 * its first record (which ends at next_off).
 */
static int seg_add(struct dut_trace_stream *s, size_t blk, uint64_t off, uint64_t end,
		   uint64_t first_ts, uint64_t last_ts, const struct dut_trace_cstate *st,
		   uint64_t next_off)
{
	struct dut_trace_cstate cs;
	struct seg *g;
	int r;

	/* a segment's times do not go down: the window drops a prefix, or all of it */
	if (last_ts < s->lo)
		return 0;
	if (first_ts < s->lo && !st) {
		while ((first_ts = dut_le64_get(s->buf + off)) < s->lo)
			off += s->sc.rec_size;
	} else if (first_ts < s->lo) {
		cs = *st;
		st = &cs;
		while (cs.prev.ts_ns < s->lo) {
			const uint8_t *q = s->buf + next_off;

			/* decoded once by the split (which checked it): it cannot fail here */
			(void)dut_trace_crec_decode_hot(&q, s->buf + end, &cs);
			off = next_off;
			next_off = (uint64_t)(q - s->buf);
		}
		first_ts = cs.prev.ts_ns;
	}
	g = s->free_segs;
	if (g)
		s->free_segs = g->next;
	else if (!(g = malloc(sizeof(*g))))
		return -ENOMEM;
	*g = (struct seg){ .off = off, .end = end, .last_ts = last_ts, .block = blk };
	if (st) {
		g->compact = true;
		g->st = *st;
		g->next_off = next_off;
	}
	r = dut_trace_merge_place(s, g, first_ts);
	if (r < 0) {
		g->next = s->free_segs;
		s->free_segs = g;
		return r;
	}
	s->live[blk]++;
	return 0;
}

static int seg_add_decoded(struct dut_trace_stream *s, size_t blk, struct recbuf *rb, uint32_t i,
			   uint32_t j)
{
	struct seg *g;
	int r;

	if (rb->v[j - 1].ts_ns < s->lo)
		return 0;
	while (rb->v[i].ts_ns < s->lo)
		i++;
	g = s->free_segs;
	if (g)
		s->free_segs = g->next;
	else if (!(g = malloc(sizeof(*g))))
		return -ENOMEM;
	*g = (struct seg){ .off = rb->offs[i], .last_ts = rb->v[j - 1].ts_ns, .block = blk,
			   .rb = rb, .ri = i, .rend = j };
	r = dut_trace_merge_place(s, g, rb->v[i].ts_ns);
	if (r < 0) {
		g->rb = NULL;
		g->next = s->free_segs;
		s->free_segs = g;
		return r;
	}
	rb->refs++;
	s->live[blk]++;
	return 0;
}

/* Decode a CRECORDS frame of n records whole and split it where time goes down. */
static int crecords_split_decoded(struct dut_trace_stream *s, size_t k, const uint8_t *q,
				  const uint8_t *end, uint32_t n, const struct dut_trace_cspan *sp,
				  size_t bytes)
{
	struct recbuf *rb;
	uint32_t start = 0;
	int r = dut_trace_recbuf_decode(s, q, end, n, sp, bytes, &rb);

	if (r < 0)
		return r;
	s->decoded_bytes += bytes; /* rb's one reference: this function's, until the segments hold theirs */
	for (uint32_t i = 1; i < n; i++) {
		if (rb->v[i].ts_ns >= rb->v[i - 1].ts_ns)
			continue;
		r = seg_add_decoded(s, k, rb, start, i);
		if (r < 0)
			goto out;
		start = i;
	}
	r = seg_add_decoded(s, k, rb, start, n);
out:
	dut_trace_recbuf_put(s, rb);
	return r;
}

/*
 * Split a CRECORDS frame (payload at p, plen bytes) into segments where
 * time goes down.  The scan checked its nrecs; it decoded a frame without
 * a span (2.0), but not one with a span sp (2.1): a checked decode either
 * way, -EBADMSG for bytes that are not the frame's records or times that
 * are not sp's, before any of its records is merged.
 */
static int crecords_split(struct dut_trace_stream *s, size_t k, uint64_t p, uint32_t plen,
			  const struct dut_trace_cspan *sp)
{
	const uint8_t *q = s->buf + p + DUT_TRACE_CFRAME_FIXED, *end = s->buf + p + plen;
	uint32_t n = dut_le32_get(s->buf + p);
	struct dut_trace_cstate st, first;
	uint64_t start = (uint64_t)(q - s->buf), first_next, prev_ts, min_ts, max_ts;
	size_t bytes = sizeof(struct recbuf) + (size_t)n * (sizeof(struct dut_trace_rec) + sizeof(uint64_t));
	int r;

	if (s->decoded_bytes + bytes <= s->decoded_cap)
		return crecords_split_decoded(s, k, q, end, n, sp, bytes);
	dut_trace_cstate_init(&st);
	if (dut_trace_crec_decode_hot(&q, end, &st) < 0)
		return -EBADMSG;
	first = st;
	first_next = (uint64_t)(q - s->buf);
	prev_ts = min_ts = max_ts = st.prev.ts_ns;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t at = (uint64_t)(q - s->buf);

		if (dut_trace_crec_decode_hot(&q, end, &st) < 0)
			return -EBADMSG;
		if (st.prev.ts_ns > max_ts)
			max_ts = st.prev.ts_ns;
		if (st.prev.ts_ns >= prev_ts) {
			prev_ts = st.prev.ts_ns;
			continue;
		}
		if (st.prev.ts_ns < min_ts)
			min_ts = st.prev.ts_ns;
		r = seg_add(s, k, start, at, first.prev.ts_ns, prev_ts, &first, first_next);
		if (r < 0)
			return r;
		start = at;
		first = st;
		first_next = (uint64_t)(q - s->buf);
		prev_ts = st.prev.ts_ns;
	}
	/* the segments placed above are not read before this returns: the merge stops here */
	if (!dut_trace_cframe_decoded_ok(q, end, min_ts, max_ts, sp))
		return -EBADMSG;
	return seg_add(s, k, start, (uint64_t)(q - s->buf), first.prev.ts_ns, prev_ts, &first,
		       first_next);
}

/* The merge cannot go on: why, in the loader's words (sticky: every later call fails alike). */
static int merge_failed(struct dut_trace_stream *s, int r, uint64_t frame_off, uint32_t type,
			uint32_t plen)
{
	if (r == -EBADMSG)
		dut_trace_error_malformed(&s->merr, frame_off, type, plen);
	else
		dut_error_set(&s->merr, "out of memory reading the trace");
	s->failed = r;
	return r;
}

/*
 * Block k is split, but the block its first frame follows was not (a
 * window skipped it): that block's last frame may be the CSPAN of k's first
 * CRECORDS frame, which the split checks the frame against.
 */
static void span_look_back(struct dut_trace_stream *s, size_t k)
{
	size_t j = k;
	uint64_t off;

	while (j > 0 && s->sc.blocks[--j].first_frame == UINT64_MAX)
		;
	off = s->sc.blocks[j].first_frame;
	if (j == k || j == s->prev_blk || off == UINT64_MAX)
		return;
	while (off < s->bend[j]) {
		uint32_t type = dut_le32_get(s->buf + off);
		uint32_t plen = dut_le32_get(s->buf + off + 4);
		uint64_t p = off + DUT_TRACE_FRAME_HDR_SIZE;

		off += DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(plen);
		if (type == DUT_TRACE_FRAME_CSPAN) {
			s->span.min_ts = dut_le64_get(s->buf + p);
			s->span.max_ts = dut_le64_get(s->buf + p + 8);
			s->span_for = off;
		}
	}
}

/* Split block k's RECORDS and CRECORDS frames into segments and place them. */
static int block_split(struct dut_trace_stream *s, size_t k)
{
	const uint32_t rs = s->sc.rec_size;
	uint64_t off = s->sc.blocks[k].first_frame;
	uint64_t limit = s->bend[k];
	int r;

	if (s->lo && k > 0)
		span_look_back(s, k);
	s->prev_blk = k;
	s->blocks_split++;
	if (s->sc.prefault && limit > s->pf_hi) {
		/* map this block's pages in, and the next ones', in one call per run */
		uint64_t lo = off > s->pf_hi ? off : s->pf_hi;

		s->pf_hi = limit > lo + DUT_TRACE_RELEASE_BATCH ? limit : lo + DUT_TRACE_RELEASE_BATCH;
		s->sc.prefault(s->sc.release_ctx, lo, s->pf_hi - lo);
	}
	while (off < limit) {
		const uint64_t frame_off = off;
		uint32_t type = dut_le32_get(s->buf + off);
		uint32_t plen = dut_le32_get(s->buf + off + 4);
		uint64_t p = off + DUT_TRACE_FRAME_HDR_SIZE, start = p, end = p + plen;

		off += DUT_TRACE_FRAME_HDR_SIZE + dut_trace_pad8(plen);
		if (type == DUT_TRACE_FRAME_CSPAN) {
			/* the scan checked it: whole, and right before a CRECORDS frame */
			s->span.min_ts = dut_le64_get(s->buf + p);
			s->span.max_ts = dut_le64_get(s->buf + p + 8);
			s->span_for = off;
			continue;
		}
		if (type == DUT_TRACE_FRAME_CRECORDS) {
			r = crecords_split(s, k, p, plen, s->span_for == frame_off ? &s->span : NULL);
			if (r < 0)
				return merge_failed(s, r, frame_off, type, plen);
			continue;
		}
		if (type != DUT_TRACE_FRAME_RECORDS || plen == 0)
			continue;
		uint64_t first = dut_le64_get(s->buf + p), prev = first;

		for (p += rs; p < end; p += rs) {
			uint64_t ts = dut_le64_get(s->buf + p);

			if (ts >= prev) {
				prev = ts;
				continue;
			}
			r = seg_add(s, k, start, p, first, prev, NULL, 0);
			if (r < 0)
				return merge_failed(s, r, frame_off, type, plen);
			start = p;
			first = prev = ts;
		}
		r = seg_add(s, k, start, end, first, prev, NULL, 0);
		if (r < 0)
			return merge_failed(s, r, frame_off, type, plen);
	}
	if (s->live[k] == 0)
		dut_trace_merge_release_block(s, k);
	return 0;
}

/*
 * The parts of a set are merged by time, ties to the older segment: a
 * segment's records were all drained before the next one's, so this is
 * the order one file of them all would give, but for a record whose time
 * equals one in an older segment (the single file would order them by
 * offset, which is the same: older segment first).
 */
static int set_fill(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t cap,
		    size_t *ret_n)
{
	size_t n = 0;

	while (n < cap) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < s->nparts; i++) {
			struct part_cur *c = &s->cur[i];

			if (!c->n && !c->done) {
				int r = dut_trace_stream_next(s->parts[i], &c->p, &c->n);

				if (r < 0) {
					dut_trace_stream_error(s->parts[i], &s->merr);
					s->failed = r;
					return r;
				}
				c->done = c->n == 0;
			}
			if (c->n && (best == SIZE_MAX || c->p->ts_ns < s->cur[best].p->ts_ns))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		out[n++] = *s->cur[best].p++;
		s->cur[best].n--;
	}
	*ret_n = n;
	return 0;
}

/*
 * The next block to split is the first from next_blk with a record at or
 * after lo; none when its split key is not below hi's (every record not
 * read yet is at or after hi).  The split key is at most hi_key, so the
 * emit loops stop at hi without a compare of their own.
 */
static void split_next(struct dut_trace_stream *s)
{
	const size_t nb = s->sc.nblocks;
	mkey k = MKEY_END;

	while (s->next_blk < nb && s->sc.blocks[s->next_blk].max_ts < s->lo)
		s->next_blk++;
	if (s->next_blk < nb) {
		uint64_t ts = s->smin[s->next_blk];

		k = mkey_make(ts > s->lo ? ts : s->lo, s->sc.blocks[s->next_blk].first_frame);
		if (s->hi != UINT64_MAX && !mkey_lt(k, s->hi_key))
			s->next_blk = nb;
	}
	s->split_key = mkey_lt(k, s->hi_key) ? k : s->hi_key;
}

void dut_trace_stream_window_reset(struct dut_trace_stream *s)
{
	uint64_t m = UINT64_MAX;

	/* the blocks the window skips do not lower the others' split keys */
	for (size_t k = s->sc.nblocks; k-- > 0;) {
		const struct dut_trace_block *b = &s->sc.blocks[k];

		if (b->nrecs && b->max_ts >= s->lo && b->min_ts < m)
			m = b->min_ts;
		s->smin[k] = m;
	}
	s->hi_key = s->hi == UINT64_MAX ? MKEY_END : mkey_make(s->hi, 0);
	s->next_blk = 0;
	s->prev_blk = SIZE_MAX;
	split_next(s);
}

int dut_trace_stream_fill(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t cap,
			  size_t *ret_n)
{
	size_t n = 0;
	int r;

	if (s->nparts)
		return set_fill(s, out, cap, ret_n);

	for (;;) {
		n = dut_trace_merge_emit(s, out, n, cap);
		/* cap reached, or the merge reached the next block's earliest record */
		if (n == cap)
			break;
		if (s->next_blk == s->sc.nblocks) {
			if (n == 0)
				dut_trace_merge_release_flush(s); /* the end */
			break;
		}
		r = block_split(s, s->next_blk++);
		if (r < 0)
			return r;
		split_next(s);
	}
	if (s->zero_dutfs) /* a 1.0 trace: the field is not a measurement */
		for (size_t i = 0; i < n; i++)
			out[i].dutfs_ns = 0;
	*ret_n = n;
	return 0;
}

int dut_trace_stream_next(struct dut_trace_stream *s, const struct dut_trace_rec **ret,
			  size_t *ret_n)
{
	size_t n;
	int r;

	if (s->pipe)
		return s->pipe_ops->next(s->pipe, ret, ret_n);
	if (s->failed)
		return s->failed;
	r = dut_trace_stream_fill(s, s->out, OUT_RECS, &n);
	if (r < 0)
		return r;
	*ret = s->out;
	*ret_n = n;
	return 0;
}

void dut_trace_stream_error(const struct dut_trace_stream *s, struct dut_error *ret)
{
	if (s->pipe)
		s->pipe_ops->error(s->pipe, ret);
	else
		*ret = s->merr;
}

static void seg_list_free(struct dut_trace_stream *s, struct seg *g)
{
	while (g) {
		struct seg *next = g->next;

		dut_trace_recbuf_put(s, g->rb);
		free(g);
		g = next;
	}
}

void dut_trace_stream_close(struct dut_trace_stream *s)
{
	if (!s)
		return;
	if (s->pipe)
		s->pipe_ops->stop(s->pipe); /* before the merge state it uses goes */
	for (size_t i = 0; i < s->nparts; i++)
		dut_trace_stream_close(s->parts[i]);
	free(s->parts);
	free(s->cur);
	dut_trace_seconds_file_free(s->seconds);
	for (size_t i = 0; i < s->nleaf; i++)
		seg_list_free(s, s->runs[i].head);
	seg_list_free(s, s->free_segs);
	dut_trace_merge_free(s);
	dut_trace_recbuf_pool_free(s);
	free(s->smin);
	free(s->bend);
	free(s->live);
	if (!s->shared) {
		free(s->sc.blocks);
		dut_trace_free(s->sc.meta);
	}
	if (s->unmap)
		s->unmap(s->unmap_ctx);
	free(s);
}
DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)

int dut_trace_stream_new(const void *buf, size_t len, const struct dut_trace_stream_hooks *hooks,
			 struct dut_trace_stream **ret, struct dut_error *err)
{
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = calloc(1, sizeof(*s));
	size_t nb;
	int r;

	if (!s) {
		if (hooks && hooks->unmap)
			hooks->unmap(hooks->ctx);
		return -ENOMEM;
	}
	if (hooks) {
		s->sc.release = hooks->release;
		s->sc.release_ctx = hooks->ctx;
		s->sc.prefault = hooks->prefault;
		s->sc.read = hooks->read;
		s->sc.read_ctx = hooks->ctx;
		s->unmap = hooks->unmap;
		s->unmap_ctx = hooks->ctx;
	}
	s->buf = buf;
	s->len = len;
	s->decoded_cap = DECODED_CAP;
	s->span_for = UINT64_MAX;
	r = dut_trace_scan(buf, len, &s->sc, err);
	if (r < 0)
		return r;
	s->zero_dutfs = !dut_trace_hdr_has_dutfs_ns(&s->sc.meta->hdr);
	/* blocks after the last one with a record are never split */
	nb = s->sc.nblocks;
	while (nb > 0 && s->sc.blocks[nb - 1].nrecs == 0)
		nb--;
	s->sc.nblocks = nb;
	r = dut_trace_stream_merge_init(s, NULL);
	if (r < 0) {
		dut_error_set(err, "out of memory reading the trace");
		return r;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

int dut_trace_stream_merge_init(struct dut_trace_stream *s, const uint64_t *bend)
{
	const size_t nb = s->sc.nblocks;
	uint64_t end = s->sc.meta->valid_bytes;

	s->smin = malloc((nb + 1) * sizeof(*s->smin));
	s->bend = malloc((nb + 1) * sizeof(*s->bend));
	s->live = calloc(nb + 1, sizeof(*s->live));
	if (!s->smin || !s->bend || !s->live)
		return -ENOMEM;
	for (size_t k = nb; k-- > 0;) {
		s->bend[k] = bend ? bend[k] : end;
		if (s->sc.blocks[k].first_frame != UINT64_MAX)
			end = s->sc.blocks[k].first_frame;
	}
	s->top_key = MKEY_END;
	s->hi = UINT64_MAX;
	dut_trace_stream_window_reset(s);
	return 0;
}

int dut_trace_stream_open_buf(const void *buf, size_t len, struct dut_trace_stream **ret,
			      struct dut_error *err)
{
	return dut_trace_stream_new(buf, len, NULL, ret, err);
}

void dut_trace_stream_set_decoded_cap(struct dut_trace_stream *s, size_t bytes)
{
	s->decoded_cap = bytes;
	for (size_t i = 0; i < s->nparts; i++)
		s->parts[i]->decoded_cap = bytes;
}

const struct dut_trace *dut_trace_stream_meta(const struct dut_trace_stream *s)
{
	return s->nparts ? &s->meta_set : s->sc.meta;
}

const struct dut_trace_seconds_file *dut_trace_stream_seconds(const struct dut_trace_stream *s)
{
	return s->seconds;
}

int dut_trace_stream_set(struct dut_trace_stream **parts, size_t nparts,
			 struct dut_trace_seconds_file *seconds, struct dut_trace_stream **ret)
{
	struct dut_trace_stream *s = calloc(1, sizeof(*s));
	const struct dut_trace *newest, *oldest;
	bool any = false;

	if (!s || !(s->cur = calloc(nparts, sizeof(*s->cur)))) {
		free(s);
		for (size_t i = 0; i < nparts; i++)
			dut_trace_stream_close(parts[i]);
		free(parts);
		dut_trace_seconds_file_free(seconds);
		return -ENOMEM;
	}
	s->parts = parts;
	s->nparts = nparts;
	s->seconds = seconds;
	newest = parts[nparts - 1]->sc.meta;
	oldest = parts[0]->sc.meta;
	s->meta_set = *newest;
	s->meta_set.nrecs = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct dut_trace_scan *sc = &parts[i]->sc;

		s->meta_set.nrecs += sc->meta->nrecs;
		if (!sc->meta->nrecs)
			continue;
		if (!any || sc->first_ts < s->sc.first_ts)
			s->sc.first_ts = sc->first_ts;
		if (!any || sc->last_ts > s->sc.last_ts)
			s->sc.last_ts = sc->last_ts;
		any = true;
	}
	s->meta_set.first_seq = oldest->seg.seq;
	s->meta_set.records_gone = oldest->seg.records_before;
	/* the footer of a set: the run's totals (each segment's counts its own) */
	s->meta_set.footer.records_written += newest->seg.records_before;
	s->meta_set.footer.records_dropped += newest->seg.dropped_before;
	*ret = s;
	return 0;
}

void dut_trace_stream_span(const struct dut_trace_stream *s, uint64_t *ret_first_ns,
			   uint64_t *ret_last_ns)
{
	*ret_first_ns = s->sc.first_ts;
	*ret_last_ns = s->sc.last_ts;
}
