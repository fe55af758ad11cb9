/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to trace_stream.c and trace_stream_frames.c: the merge's state. */
#ifndef DUTLAB_TRACE_STREAM_PRIV_H
#define DUTLAB_TRACE_STREAM_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

#define OUT_RECS 1024u
/*
 * A CRECORDS frame is decoded into an array when split (the split decodes
 * every record anyway), so the merge reads records instead of decoding them
 * a third time; while these arrays hold more than this, frames stay
 * encoded and are decoded again as merged (a record written very late can
 * make the merge split many blocks early: memory stays bounded).
 */
#define DECODED_CAP ((size_t)32 << 20)

/*
 * Freed decoded frames are kept for the next ones while the arrays in use
 * and the kept ones stay within decoded_cap: a writer's frames are
 * thousands of records (a few hundred KB decoded), which malloc serves from
 * fresh pages each time (mmap, or a heap top it trims again), and those
 * page faults cost more than the decoding.
 *
 * A decoded frame: its records and their byte offsets (the merge's tie key).
 */
struct recbuf {
	size_t refs;                 /* segments still reading it */
	size_t bytes;                /* counted in decoded_bytes: what the frame needs */
	size_t cap_bytes;            /* allocated (a pooled buffer may be larger) */
	struct recbuf *next_free;    /* in the stream's pool */
	uint64_t *offs;              /* after v[] */
	struct dut_trace_rec v[];
};

struct seg {
	struct seg *next;
	uint64_t off;                /* next record's byte offset */
	uint64_t end;                /* one past the last record */
	uint64_t last_ts;
	size_t block;
	/*
	 * A stretch of a CRECORDS frame: st.prev is the record at off,
	 * decoded, st the coder state after it, and next_off where the next
	 * record starts.
	 */
	bool compact;
	uint64_t next_off;
	struct dut_trace_cstate st;
	/* a stretch of a decoded frame (rb != NULL): records ri .. rend - 1 */
	struct recbuf *rb;
	uint32_t ri, rend;
};

/*
 * A merge key: (ts_ns, byte offset), ordered by time then offset.  One
 * 128-bit integer where the compiler has them, so a compare is two
 * instructions and a select needs no branch.
 */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 mkey;
#define MKEY_ZERO ((mkey)0)
#define MKEY_END (~(mkey)0)
static inline mkey mkey_make(uint64_t ts, uint64_t off)
{
	return (mkey)ts << 64 | off;
}
static inline bool mkey_lt(mkey a, mkey b)
{
	return a < b;
}
#else
typedef struct { uint64_t ts, off; } mkey;
#define MKEY_ZERO ((mkey){ 0, 0 })
#define MKEY_END ((mkey){ UINT64_MAX, UINT64_MAX })
static inline mkey mkey_make(uint64_t ts, uint64_t off)
{
	return (mkey){ ts, off };
}
static inline bool mkey_lt(mkey a, mkey b)
{
	return a.ts < b.ts || (a.ts == b.ts && a.off < b.off);
}
#endif

enum run_kind {
	RUN_FIXED,                   /* a stretch of a RECORDS frame, read in place */
	RUN_DECODED,                 /* a stretch of a decoded CRECORDS frame (seg->rb) */
	RUN_CODED,                   /* a stretch of a CRECORDS frame decoded as merged */
};

/*
 * A leaf of the merge's tree.  The head segment's cursor is copied here
 * when it becomes the head, so emitting a record reads this struct and the
 * records, not the segment.  A run with no head is done (key MKEY_END);
 * its leaf is reused when the tree is next rebuilt.
 */
struct run {
	mkey key;                    /* the next record's */
	const uint8_t *p, *pend;     /* RUN_FIXED: the next record, the segment's end */
	const struct dut_trace_rec *v, *vend; /* RUN_DECODED: the next record, the end */
	const uint64_t *voff;        /* RUN_DECODED: v's byte offset */
	enum run_kind kind;
	struct seg *head, *tail;     /* head: being read; tail: where a later segment goes */
};

struct dut_trace_pipe;

/*
 * The merge's thread (trace_stream_pipe.c), reached through this table so
 * that the merge (trace_stream.c) does not call into the file that calls it.
 */
struct dut_trace_pipe_ops {
	int (*next)(struct dut_trace_pipe *p, const struct dut_trace_rec **ret, size_t *ret_n);
	/* ends the thread and frees p */
	void (*stop)(struct dut_trace_pipe *p);
	/* the merge's error message once the thread has met it, else empty */
	void (*error)(struct dut_trace_pipe *p, struct dut_error *ret);
};

struct dut_trace_stream {
	/*
	 * Set by dut_trace_stream_prefetch(): a thread merges into its slots
	 * and dut_trace_stream_next() hands them out; the merge state below
	 * is then that thread's alone until pipe_ops->stop().
	 */
	struct dut_trace_pipe *pipe;
	const struct dut_trace_pipe_ops *pipe_ops;
	const uint8_t *buf;
	size_t len;
	struct dut_trace_scan sc;
	bool zero_dutfs;             /* a 1.0 trace: dutfs_ns is not a measurement */
	/*
	 * A clone (dut_trace_stream_clone): buf, sc.blocks and sc.meta are
	 * the original's, only read, and freed or unmapped by its close.
	 */
	bool shared;
	uint64_t *smin;              /* earliest record at or after lo in the blocks [k, nblocks) read */
	uint64_t *bend;              /* where block k's frames end */
	uint32_t *live;              /* block k's segments not yet read */
	size_t next_blk;             /* first block not split into segments */
	size_t prev_blk;             /* the last block split (SIZE_MAX: none yet) */
	size_t blocks_split;         /* for the tests: a window splits only the blocks it needs */
	/*
	 * The window: records lo <= ts_ns < hi only (0, UINT64_MAX: all).
	 * Segments drop their records before lo when split, blocks whose
	 * latest record is before lo are not split, and split_key is never
	 * above hi_key, (hi, 0) or MKEY_END: the merge stops there.
	 */
	uint64_t lo, hi;
	/*
	 * The merge: a loser tree over runs[0 .. nleaf - 1] (nleaf a power of
	 * two, or 0): node j in 1 .. nleaf - 1 holds the key and run of the
	 * loser of the match between its two subtrees (leaf i's parent is
	 * (nleaf + i) / 2), top_* the overall winner.  bound is a key no
	 * greater than any other run's: the winner emits while below it.
	 */
	struct run *runs;
	mkey *nkey;
	uint32_t *nrun;
	uint32_t *win;               /* rebuild's scratch: 2 * nleaf */
	size_t nleaf, cap_leaf, nlive;
	mkey top_key, bound;
	uint32_t top_run;
	mkey split_key;              /* block next_blk's (smin, first frame), MKEY_END when none; at most hi_key */
	mkey hi_key;
	struct seg *free_segs;
	size_t decoded_bytes;        /* in recbufs */
	size_t decoded_cap;          /* DECODED_CAP, or the tests' */
	struct recbuf *rb_pool;      /* freed recbufs, chained through next_free */
	size_t rb_pool_bytes;        /* their cap_bytes: decoded_bytes + this <= decoded_cap */
	/*
	 * The merge's: the last CSPAN frame split (2.1) and the frame it is
	 * for; the merge's error (sticky: failed, and merr in the loader's
	 * words), read by the reader's thread once the merge has ended.
	 */
	struct dut_trace_cspan span;
	uint64_t span_for;
	int failed;
	struct dut_error merr;
	void (*unmap)(void *ctx);    /* at close: the mapping's owner */
	void *unmap_ctx;
	/* a segment set (nparts > 0): this stream merges its parts, oldest first */
	struct dut_trace_stream **parts;
	size_t nparts;
	struct part_cur *cur;
	struct dut_trace meta_set;   /* the newest part's meta (not owned), with the set's totals */
	struct dut_trace_seconds_file *seconds;
	uint64_t rel_lo, rel_hi;      /* blocks read but not yet released: [lo, hi) */
	uint64_t pf_hi;               /* the merge asked the pages below this to be mapped in */
	struct dut_trace_rec out[OUT_RECS];
};

struct part_cur {
	const struct dut_trace_rec *p;
	size_t n;
	bool done;
};

/* The last reference is gone: keep rb for the next frame, or free it (trace_stream_frames.c). */
void dut_trace_recbuf_recycle(struct dut_trace_stream *s, struct recbuf *rb);
/* Free the pool (at close). */
void dut_trace_recbuf_pool_free(struct dut_trace_stream *s);

static inline void dut_trace_recbuf_put(struct dut_trace_stream *s, struct recbuf *rb)
{
	if (rb && --rb->refs == 0) {
		s->decoded_bytes -= rb->bytes;
		dut_trace_recbuf_recycle(s, rb);
	}
}

/*
 * Allocate s's per-block arrays for its scan (bend copied from bend, or
 * computed when NULL) and start its merge at its window (trace_stream.c).
 */
int dut_trace_stream_merge_init(struct dut_trace_stream *s, const uint64_t *bend);
/* s->lo and s->hi changed, before the merge began: index the blocks the window reads. */
void dut_trace_stream_window_reset(struct dut_trace_stream *s);

/* The merge (trace_stream.c): up to cap records into out, *ret_n of them (0 at the end). */
int dut_trace_stream_fill(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t cap,
			  size_t *ret_n);

/*
 * Put segment g (its first record's time first_ts) into the run whose last
 * time is the latest not after first_ts, or a new run (trace_stream_merge.c).
 */
int dut_trace_merge_place(struct dut_trace_stream *s, struct seg *g, uint64_t first_ts);
/*
 * Merge records into out[n .. cap - 1] while the smallest key is below
 * split_key (trace_stream_merge.c); returns the new count.
 */
size_t dut_trace_merge_emit(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t n,
			    size_t cap);
/* Block k's segments are all read (or it has none): the caller may drop its pages. */
void dut_trace_merge_release_block(struct dut_trace_stream *s, size_t k);
/* Release the blocks dut_trace_merge_release_block() holds back (at the merge's end). */
void dut_trace_merge_release_flush(struct dut_trace_stream *s);
/* Free the merge's runs and their segments (at close). */
void dut_trace_merge_free(struct dut_trace_stream *s);

/*
 * Decode the CRECORDS frame whose n records are at q .. end into an array
 * of `bytes` bytes (new, or from s's pool), one reference; offs[] are the
 * records' byte offsets in s->buf.  Checked: -EBADMSG when the bytes are
 * not n records that end at end, or their times are not the span sp (NULL:
 * no span; a 2.1 frame's bytes were not decoded before).
 */
int dut_trace_recbuf_decode(struct dut_trace_stream *s, const uint8_t *q, const uint8_t *end,
			    uint32_t n, const struct dut_trace_cspan *sp, size_t bytes, struct recbuf **ret);

#endif
