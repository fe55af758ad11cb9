/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to lib/trace_writer*.c: the writer's state, shared by the rings
 * and the writer thread (trace_writer.c) and the rotation of a bounded
 * trace with its side file (trace_writer_rotate.c).  Locks: trace_writer.c.
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

/* trace_writer.c */
uint64_t dut_tw_now_ns(clockid_t clk);
void dut_tw_note_error(struct dut_trace_writer *w, int err);
/* Write n bytes at the end of the trace (rotating first when it is full). */
int dut_tw_append(struct dut_trace_writer *w, const uint8_t *p, size_t n);
uint64_t dut_tw_drops_now(struct dut_trace_writer *w);

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
