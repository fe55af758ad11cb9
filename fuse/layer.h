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
 */
#ifndef DUTFS_LAYER_H
#define DUTFS_LAYER_H

#include <stdint.h>

struct dutfs_inode;

struct dutfs_io {
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
};

struct dutfs_layer_ops {
	const char *name;
	int (*submit)(void *ctx, struct dutfs_io *io);
	void (*complete)(void *ctx, struct dutfs_io *io);
};

struct dutfs_layer {
	const struct dutfs_layer_ops *ops;
	void *ctx;
};

#define DUTFS_MAX_LAYERS 4

#endif
