/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ops layering of dutfs: passthrough -> tracer -> (shaper).
 *
 * Every data-file operation (read, write, fsync, open, ...) is described by a
 * struct dutfs_io.  The passthrough ops call dutfs_io_begin() before the
 * backing call and dutfs_io_end() after it.  Layers are stacked in
 * fs->layers[]: begin runs ->submit outermost first (index 0 up), end runs
 * ->complete innermost first (index n-1 down), so the tracer (layer 0) sees
 * the final result and latency after a device model (a later layer) has
 * added its delay or injected a fault.
 *
 * A layer's ->submit may fail the request before the backing call by
 * returning -errno (io->result is set to it and the backing call is skipped);
 * ->complete may change io->result and add to io->lat_ns.
 *
 * Shaping (fuse/shaper.c) adds three things a submit may ask for: a shorter
 * transfer (xfer_len < len), no backing call at all (skip_call: an fsync with
 * barriers off, result 0), and a reply not before reply_ns.  Ops that can
 * answer late (read, write, fsync, fallocate) reply through dutfs_io_reply():
 * when reply_ns is still ahead after the backing call, the reply is handed
 * to the timer thread and ->complete runs there, at the real reply time, so
 * lat_ns (and the trace record) include the delay.  ->backing_done runs in
 * the worker right after the backing call (before a late reply).
 *
 * dutfs's own time (the trace record's dutfs_ns): dutfs_io_begin takes
 * arrival_ns on entry; dutfs_io_reply takes the clock again right before the
 * fuse_reply_* call (in the worker, or in the timer thread for a late reply)
 * and, after the reply, runs ->replied with it, so the tracer emits the
 * record only once the reply time is known:
 *   dutfs_ns = (reply - arrival_ns) - lat_ns
 * A successful open or create replies through reply_raw.c after its
 * dutfs_io_end: the tracer keeps that record in the thread until the raw
 * reply (dutfs_tracer_raw_replied), so it gets dutfs_ns too, counted from
 * dutfs_io_begin (after the switch to the caller's credentials) or, for
 * create, from the backing openat.  Ops that reply by themselves (release,
 * truncate, unlink, rename, a failed open) end with dutfs_io_end: their
 * records say 0 (not recorded).  Clock reads per request: arrival (which is also ts_ns when no
 * layer has a ->submit), end of the backing call, reply; one more for ts_ns
 * when a layer (the shaper) decided in ->submit.
 */
#ifndef DUTFS_LAYER_H
#define DUTFS_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "fuse/shape/engine.h"

struct dutfs_inode;
struct dutfs_shaper_gen;

/* The shaper's state for one request (fuse/shaper.c); zero when not shaped. */
struct dutfs_shape_req {
	struct dutfs_shaper_gen *gen; /* the rules generation that decided (holds a ref) */
	struct shape_verdict v;
	uint64_t key;                 /* shape file key (backing inode) */
	uint64_t epoch;               /* crash epoch at submit */
	uint8_t state;                /* DUTFS_SHAPE_* bits */
};

struct dutfs_io {
	uint64_t arrival_ns; /* CLOCK_MONOTONIC when dutfs_io_begin was entered */
	const void *req;     /* the fuse_req_t (identifies the raw reply of an open/create) */
	uint64_t ts_ns;      /* CLOCK_MONOTONIC when the backing call started */
	uint64_t lat_ns;     /* backing call (+ layer delays) */
	uint64_t offset;     /* op-specific, see enum dut_trace_op */
	uint32_t len;
	int32_t result;      /* bytes, 0 or -errno */
	uint32_t file_id;    /* 0: not a traced file */
	uint32_t pid;
	uint16_t op;         /* enum dut_trace_op */
	uint16_t flags;      /* DUT_TRACE_F_* */
	struct dutfs_inode *inode;
	/* set by layers in ->submit (dutfs_io_begin initialises them) */
	uint32_t xfer_len;   /* bytes the backing call moves (< len: a short transfer) */
	bool skip_call;      /* no backing call; the result is 0 */
	bool backing_done;   /* ->backing_done has run */
	uint64_t reply_ns;   /* CLOCK_MONOTONIC; reply not before this (0: at once) */
	struct dutfs_shape_req shape;
	/* set by dutfs_io_reply: the layers' ->replied will run after the reply */
	bool reply_pending;
	bool trace_pending;  /* the tracer holds this request's record until ->replied */
};

struct dutfs_layer_ops {
	const char *name;
	int (*submit)(void *ctx, struct dutfs_io *io);
	void (*complete)(void *ctx, struct dutfs_io *io);
	/* After the backing call, in the worker, before any late reply (NULL: none). */
	void (*backing_done)(void *ctx, struct dutfs_io *io);
	/* After the reply was sent at replied_ns (only for dutfs_io_reply; NULL: none). */
	void (*replied)(void *ctx, struct dutfs_io *io, uint64_t replied_ns);
};

struct dutfs_layer {
	const struct dutfs_layer_ops *ops;
	void *ctx;
};

#define DUTFS_MAX_LAYERS 4

struct dutfs;
/* The layers' ->replied (tracer.c); reply_late.c calls it after each reply it sends. */
void dutfs_io_replied(struct dutfs *fs, struct dutfs_io *io, uint64_t replied_ns);
/*
 * reply_raw.c, after an open/create reply it sent (clock read before it):
 * the tracer emits the record this thread's open or create left pending.
 */
void dutfs_tracer_raw_replied(const void *req, uint64_t replied_ns);

#endif
