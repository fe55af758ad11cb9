/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader: the merge of the runs (trace_stream.c makes them).
 * Pure.  Each run is sorted by key (ts_ns, byte offset); the merge always
 * emits the smallest head key, which is dut_trace_load()'s order.
 *
 * A loser tree picks it: after the winner's key grows, one path of
 * log2(leaves) nodes is replayed, one compare and branch-free selects per
 * node (a binary heap's sift compares twice per level and branches on
 * data: the merge's runs are the writer threads', interleaved record by
 * record, so nearly every record changes the winner).  The replay also
 * yields the runner-up's key when the winner stays; the winner then emits
 * records in a tight loop, one compare each, while its next key is below
 * that bound and the next block's split key.  Each segment kind (a RECORDS
 * stretch read in place, a decoded CRECORDS array, a CRECORDS stretch
 * decoded as merged) has its own loop.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"

/* A 1.1 record: on a little-endian host its bytes are the struct's. */
static inline void rec_load(const uint8_t *p, struct dut_trace_rec *ret)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	_Static_assert(sizeof(struct dut_trace_rec) == DUT_TRACE_REC_SIZE &&
		       offsetof(struct dut_trace_rec, offset) == 8 &&
		       offsetof(struct dut_trace_rec, lat_ns) == 16 &&
		       offsetof(struct dut_trace_rec, len) == 24 &&
		       offsetof(struct dut_trace_rec, result) == 28 &&
		       offsetof(struct dut_trace_rec, file_id) == 32 &&
		       offsetof(struct dut_trace_rec, pid) == 36 &&
		       offsetof(struct dut_trace_rec, op) == 40 &&
		       offsetof(struct dut_trace_rec, flags) == 42 &&
		       offsetof(struct dut_trace_rec, dutfs_ns) == 44,
		       "struct dut_trace_rec is not the 1.1 record's layout");
	memcpy(ret, p, sizeof(*ret));
#else
	dut_trace_rec_decode(p, ret);
#endif
}

static inline mkey mkey_min(mkey a, mkey b)
{
	return mkey_lt(a, b) ? a : b;
}

/* c ? b : a by mask (the compiler made ?: on keys a branch, mispredicted on interleaved runs) */
static inline mkey mkey_sel(mkey a, mkey b, bool c)
{
#ifdef __SIZEOF_INT128__
	uint64_t m = -(uint64_t)c;

	return a ^ ((a ^ b) & ((mkey)m << 64 | m));
#else
	return c ? b : a;
#endif
}

static inline uint32_t u32_sel(uint32_t a, uint32_t b, bool c)
{
	return a ^ ((a ^ b) & -(uint32_t)c);
}

/* Segment g becomes run r's head: copy its cursor into r. */
static void run_load(const struct dut_trace_stream *s, struct run *r, struct seg *g)
{
	r->head = g;
	if (g->rb) {
		r->kind = RUN_DECODED;
		r->v = &g->rb->v[g->ri];
		r->vend = &g->rb->v[g->rend];
		r->voff = &g->rb->offs[g->ri];
		r->key = mkey_make(r->v->ts_ns, *r->voff);
	} else if (g->compact) {
		r->kind = RUN_CODED;
		r->key = mkey_make(g->st.prev.ts_ns, g->off);
	} else {
		r->kind = RUN_FIXED;
		r->p = s->buf + g->off;
		r->pend = s->buf + g->end;
		r->key = mkey_make(dut_le64_get(r->p), g->off);
	}
}

/*
 * The winner's key changed to k: replay its path.  The new bound is the
 * smallest key met on the path: when the winner stayed, these are the
 * losers on its path, the smallest of which is the runner-up's; when
 * another run won, its own key is among them, so its stretch stops after
 * one record and the next replay finds its runner-up.
 */
static inline void tree_replay(struct dut_trace_stream *s, mkey k)
{
	mkey *restrict nkey = s->nkey;
	uint32_t *restrict nrun = s->nrun;
	uint32_t w = s->top_run;
	mkey ru = MKEY_END;

	for (size_t j = (s->nleaf + w) >> 1; j; j >>= 1) {
		mkey lk = nkey[j];
		uint32_t lr = nrun[j];
		bool sw = mkey_lt(lk, k);

		ru = mkey_sel(ru, lk, mkey_lt(lk, ru));
		nkey[j] = mkey_sel(lk, k, sw);
		nrun[j] = u32_sel(lr, w, sw);
		k = mkey_sel(k, lk, sw);
		w = u32_sel(w, lr, sw);
	}
	s->top_key = k;
	s->top_run = w;
	s->bound = ru;
}

/* Build the tree from the leaves' keys (a run was added). */
static void tree_rebuild(struct dut_trace_stream *s)
{
	uint32_t *win = s->win;

	for (size_t i = 0; i < s->nleaf; i++)
		win[s->nleaf + i] = (uint32_t)i;
	for (size_t j = s->nleaf; j-- > 1;) {
		uint32_t a = win[2 * j], b = win[2 * j + 1];
		bool a_wins = !mkey_lt(s->runs[b].key, s->runs[a].key);

		win[j] = a_wins ? a : b;
		s->nrun[j] = a_wins ? b : a;
		s->nkey[j] = s->runs[s->nrun[j]].key;
	}
	s->top_run = s->nleaf > 1 ? win[1] : 0;
	s->top_key = s->runs[s->top_run].key;
	s->bound = MKEY_ZERO;
}

/* A new run whose head is g: pack the live runs first, grow if needed, rebuild. */
static int run_add(struct dut_trace_stream *s, struct seg *g)
{
	size_t m = 0, nleaf = 1;

	while (nleaf < s->nlive + 1)
		nleaf *= 2;
	if (nleaf > s->cap_leaf) {
		struct run *runs = realloc(s->runs, nleaf * sizeof(*runs));

		if (!runs)
			return -ENOMEM;
		s->runs = runs;
		mkey *nkey = realloc(s->nkey, nleaf * sizeof(*nkey));

		if (!nkey)
			return -ENOMEM;
		s->nkey = nkey;
		uint32_t *nrun = realloc(s->nrun, nleaf * sizeof(*nrun));

		if (!nrun)
			return -ENOMEM;
		s->nrun = nrun;
		uint32_t *win = realloc(s->win, 2 * nleaf * sizeof(*win));

		if (!win)
			return -ENOMEM;
		s->win = win;
		s->cap_leaf = nleaf;
	}
	for (size_t i = 0; i < s->nleaf; i++)
		if (s->runs[i].head)
			s->runs[m++] = s->runs[i];
	s->runs[m] = (struct run){ .tail = g };
	run_load(s, &s->runs[m], g);
	for (size_t i = m + 1; i < nleaf; i++)
		s->runs[i] = (struct run){ .key = MKEY_END };
	s->nleaf = nleaf;
	s->nlive = m + 1;
	tree_rebuild(s);
	return 0;
}

int dut_trace_merge_place(struct dut_trace_stream *s, struct seg *g, uint64_t first_ts)
{
	struct run *best = NULL;

	for (size_t i = 0; i < s->nleaf; i++) {
		struct run *r = &s->runs[i];

		if (r->head && r->tail->last_ts <= first_ts &&
		    (!best || r->tail->last_ts > best->tail->last_ts))
			best = r;
	}
	if (!best)
		return run_add(s, g);
	best->tail->next = g;
	best->tail = g;
	return 0;
}

void dut_trace_merge_free(struct dut_trace_stream *s)
{
	free(s->runs);
	free(s->nkey);
	free(s->nrun);
	free(s->win);
}

/*
 * Emit from run r while its next key is below bound and out has room; at
 * least one record (r is the winner).  *ret_ended: its head segment ended.
 * Returns the new count in out.
 */
static size_t emit_fixed(const struct dut_trace_stream *s, struct run *r, struct dut_trace_rec *out,
			 size_t n, size_t cap, mkey bound, bool *ret_ended)
{
	const uint8_t *p = r->p, *end = r->pend, *buf = s->buf;
	const size_t rs = s->sc.rec_size;
	mkey k = r->key;

	for (;;) {
		rec_load(p, &out[n++]);
		p += rs;
		if (p >= end) {
			*ret_ended = true;
			break;
		}
		k = mkey_make(dut_le64_get(p), (uint64_t)(p - buf));
		if (!mkey_lt(k, bound) || n == cap)
			break;
	}
	r->p = p;
	r->key = k;
	return n;
}

static size_t emit_decoded(struct run *r, struct dut_trace_rec *out, size_t n, size_t cap,
			   mkey bound, bool *ret_ended)
{
	const struct dut_trace_rec *v = r->v, *end = r->vend;
	const uint64_t *o = r->voff;
	mkey k = r->key;

	for (;;) {
		out[n++] = *v++;
		o++;
		if (v == end) {
			*ret_ended = true;
			break;
		}
		k = mkey_make(v->ts_ns, *o);
		if (!mkey_lt(k, bound) || n == cap)
			break;
	}
	r->v = v;
	r->voff = o;
	r->key = k;
	return n;
}

static size_t emit_coded(const struct dut_trace_stream *s, struct run *r, struct dut_trace_rec *out,
			 size_t n, size_t cap, mkey bound, bool *ret_ended)
{
	struct seg *g = r->head;

	for (;;) {
		out[n++] = g->st.prev;
		if (g->next_off >= g->end) {
			*ret_ended = true;
			break;
		}
		const uint8_t *q = s->buf + g->next_off;

		/* decoded once by the split (which checked it): it cannot fail here */
		(void)dut_trace_crec_decode_hot(&q, s->buf + g->end, &g->st);
		g->off = g->next_off;
		g->next_off = (uint64_t)(q - s->buf);
		r->key = mkey_make(g->st.prev.ts_ns, g->off);
		if (!mkey_lt(r->key, bound) || n == cap)
			break;
	}
	return n;
}

void dut_trace_merge_release_flush(struct dut_trace_stream *s)
{
	if (s->rel_hi > s->rel_lo)
		s->sc.release(s->sc.release_ctx, s->rel_lo, s->rel_hi - s->rel_lo);
	s->rel_lo = s->rel_hi = 0;
}

/*
 * Blocks are released in runs of adjacent ones of at least
 * DUT_TRACE_RELEASE_BATCH bytes: dropping pages from a mapping that other
 * threads use (the windows' clones) makes the kernel flush their TLBs, a
 * cost per call, and blocks are smaller than that so that a block's
 * decoded records stay in the CPU's cache until the merge reads them.
 */
void dut_trace_merge_release_block(struct dut_trace_stream *s, size_t k)
{
	const struct dut_trace_block *b = &s->sc.blocks[k];
	uint64_t lo = b->first_frame, hi = s->bend[k];

	if (!s->sc.release || lo == UINT64_MAX || hi <= lo)
		return;
	if (s->rel_hi > s->rel_lo && lo == s->rel_hi) {
		s->rel_hi = hi;
	} else if (s->rel_hi > s->rel_lo && hi == s->rel_lo) {
		s->rel_lo = lo;
	} else {
		dut_trace_merge_release_flush(s);
		s->rel_lo = lo;
		s->rel_hi = hi;
	}
	if (s->rel_hi - s->rel_lo >= DUT_TRACE_RELEASE_BATCH)
		dut_trace_merge_release_flush(s);
}

/* The merge read segment g to its end: drop it (and its block, when it was the last). */
static void seg_done(struct dut_trace_stream *s, struct seg *g)
{
	dut_trace_recbuf_put(s, g->rb);
	g->rb = NULL;
	if (--s->live[g->block] == 0)
		dut_trace_merge_release_block(s, g->block);
	g->next = s->free_segs;
	s->free_segs = g;
}

/* Run r's head segment ended: the next one of the run becomes its head, or the run is done. */
static void run_next_seg(struct dut_trace_stream *s, struct run *r)
{
	struct seg *g = r->head, *next = g->next;

	seg_done(s, g);
	if (next) {
		run_load(s, r, next);
		return;
	}
	r->head = r->tail = NULL;
	r->key = MKEY_END;
	s->nlive--;
}

size_t dut_trace_merge_emit(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t n,
			    size_t cap)
{
	/* nothing unread comes before the split key (trace_stream.c splits that block) */
	while (n < cap && mkey_lt(s->top_key, s->split_key)) {
		struct run *r = &s->runs[s->top_run];
		mkey bound = mkey_min(s->bound, s->split_key);
		bool ended = false;

		switch (r->kind) {
		case RUN_FIXED:
			n = emit_fixed(s, r, out, n, cap, bound, &ended);
			break;
		case RUN_DECODED:
			n = emit_decoded(r, out, n, cap, bound, &ended);
			break;
		case RUN_CODED:
			n = emit_coded(s, r, out, n, cap, bound, &ended);
			break;
		}
		if (ended)
			run_next_seg(s, r);
		tree_replay(s, r->key);
	}
	return n;
}
