/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to lib/trace_writer*.c: the writer's state, shared by the rings
 * and the writer thread (trace_writer.c) and the rotation of a bounded
 * trace with its side file (trace_writer_rotate.c), and the appender, drop
 * count and first error both use (trace_writer_io.c).  Locks: trace_writer.c.
 */
#ifndef DUT_TRACE_WRITER_PRIV_H
#define DUT_TRACE_WRITER_PRIV_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

struct ring {
	/* producer side */
	alignas(64) _Atomic uint64_t head;
	uint64_t cached_tail;
	_Atomic uint64_t dropped;        /* written by the producer only */
	/* consumer side */
	alignas(64) _Atomic uint64_t tail;
	/* shared, rarely written */
	alignas(64) _Atomic int refs;
	_Atomic bool orphaned;           /* its thread exited (or evicted it) */
	struct ring *next;               /* protected by w->bufs_lock */
	uint64_t cap, mask;              /* cap is a power of two */
	uint64_t check_mask;             /* look at the fill every check_mask + 1 records */
	uint64_t nudge_at;               /* wake the writer at this many records in use */
	struct dut_trace_rec slots[];
};

struct meta {
	struct meta *next;
	size_t len;
	uint8_t frame[];
};

struct dut_trace_writer {
	uint64_t id;                     /* unique per process, for the TLS cache */
	int fd;
	int efd;                         /* eventfd: wake the writer thread */
	bool regular;                    /* a regular file: truncate at close */
	uint64_t cap;
	uint64_t flush_interval_ns;
	bool fixed_records;              /* 1.1 RECORDS frames instead of CRECORDS */
	struct dut_trace_header hdr;

	pthread_mutex_t bufs_lock;
	struct ring *bufs;               /* protected by bufs_lock */
	_Atomic uint64_t dropped_gone;   /* full-ring drops of freed rings */

	pthread_mutex_t meta_lock;
	struct meta *meta_head, **meta_tailp; /* protected by meta_lock */

	pthread_t thread;
	_Atomic bool stop;

	/* owned by the writer thread (and by close after the join) */
	uint8_t *batch;
	size_t batch_len;
	uint64_t batch_recs;
	struct meta *pending;            /* meta frames not yet written, in order */
	bool hdr_written;
	uint64_t off;                    /* end of the last whole frame on disk */
	int first_err;
	size_t batch_cap;                /* <= BATCH_BYTES: a batch fits a segment */
	/* the batch's CRECORDS frame being filled (2.0 traces) */
	bool cframe_open;
	size_t cframe_at;                /* its frame header's offset in the batch */
	uint32_t cframe_n;
	struct dut_trace_cstate cframe_st; /* its coder state after the last record */

	/* rotation (seg_max 0: off), owned by the writer thread */
	char *path;
	uint64_t max_bytes, seg_max;
	unsigned keep;
	struct dut_trace_segment seg;    /* the current segment's SEGMENT frame */
	uint64_t seg_written0, seg_dropped0; /* run totals when it started */
	bool seg_has_data;               /* something besides its opening frames */
	bool replaying;                  /* writing a segment's opening frames */
	struct meta *kept_info, **kept_info_tail;
	struct meta *kept_markers, **kept_markers_tail;
	struct meta **kept_files;        /* by id */
	size_t nkept_files;
	struct dut_trace_seconds *sec;
	int sec_fd;
	_Atomic uint64_t rotations;

	_Atomic uint64_t written;
	_Atomic uint64_t dropped_io;     /* records of batches that failed to write */
};

/*
 * trace_writer_io.c (the writer thread, or close after the join).  It calls
 * nothing in trace_writer.c or trace_writer_rotate.c.
 */
uint64_t dut_tw_now_ns(clockid_t clk);
/* Keep the first error for close(). */
void dut_tw_note_error(struct dut_trace_writer *w, int err);
/*
 * Write n bytes at the end of the current file (its header first, if not
 * yet written); only a whole write advances it.  It does not rotate: see
 * dut_tw_rotation_due.
 */
int dut_tw_append(struct dut_trace_writer *w, const uint8_t *p, size_t n);
/* Records dropped so far: full rings (live and freed) and failed writes. */
uint64_t dut_tw_drops_now(struct dut_trace_writer *w);

/* Would appending n bytes of records or meta frames take the segment past its size? */
static inline bool dut_tw_rotation_due(const struct dut_trace_writer *w, size_t n)
{
	return w->seg_max && !w->replaying && w->seg_has_data &&
	       w->off + n + DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE > w->seg_max;
}

/* trace_writer_rotate.c (writer thread, or close after the join) */
int dut_tw_rotation_init(struct dut_trace_writer *w, const char *path,
			 const struct dut_trace_writer_opts *o);
void dut_tw_rotation_free(struct dut_trace_writer *w);
void dut_tw_meta_keep(struct dut_trace_writer *w, struct meta *m);
void dut_tw_meta_list_free(struct meta *m);
void dut_tw_segment_open_frames(struct dut_trace_writer *w);
void dut_tw_segment_finish(struct dut_trace_writer *w, bool last);
void dut_tw_rotate(struct dut_trace_writer *w);
void dut_tw_seconds_write(struct dut_trace_writer *w, bool final);

#endif
