/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shaper layer: connects the shaping engine (fuse/shape/engine.h) to
 * the daemon.  It sits after the tracer in fs->layers[] (layer.h), so the
 * tracer records what the shaper decided: the delayed latency, the injected
 * result (flag DUT_TRACE_F_FAULT) and DUT_TRACE_F_SHAPED when a model
 * added a delay.
 *
 * Per request (regular files only): submit asks the engine for a verdict
 * (injected error: no backing call; short length; fsync with barriers off:
 * no backing call; reply time), saves pre-images before journaled writes;
 * complete tells the engine the result (journal bookkeeping) and drops or
 * clips pre-images on fsync, truncate and unlink.
 *
 * Crash (control command or crash fault): every later request fails with
 * EIO; the crash waits for the backing calls in flight, writes the discard
 * plan's pre-images back, and asks the kernel to drop its cached pages and
 * attributes of every file, so readers after recover see the restored
 * content.  Requests that were in flight across a crash reply EIO too.
 *
 * Reload: a new generation (rules, models, journal, relation map) replaces
 * the old one; requests in flight finish on the generation that decided
 * them.
 */
#ifndef DUTFS_SHAPER_H
#define DUTFS_SHAPER_H

#include <stdbool.h>
#include <stdint.h>

#include "fuse/shape/classify.h"
#include "fuse/shape/rules.h"
#include "lib/error.h"

struct dutfs;
struct dutfs_shaper;
struct json_object;

struct dutfs_shaper_opts {
	const char *rules_path;        /* re-read by reload */
	const char *relmap_path;       /* NULL: no relation map; re-read by reload */
	uint64_t preimage_max_bytes;   /* 0: DUTFS_PREIMAGE_MAX_DEFAULT */
};

/*
 * Takes ownership of rules and cls (loaded and checked before mounting;
 * cls zeroed when there is no relation map), also on failure.
 */
int dutfs_shaper_new(struct dutfs *fs, const struct dutfs_shaper_opts *o, struct shape_rules *rules,
		     struct shape_classifier *cls, struct dutfs_shaper **ret);
void dutfs_shaper_free(struct dutfs_shaper *sh);
extern const struct dutfs_layer_ops dutfs_shaper_layer;

/* Control commands; on failure err says why (for the control status and the log). */
int dutfs_shaper_crash(struct dutfs_shaper *sh, struct dut_error *err);
int dutfs_shaper_recover(struct dutfs_shaper *sh, struct dut_error *err);
int dutfs_shaper_reload(struct dutfs_shaper *sh, struct dut_error *err);

/* Crashed (requests fail with EIO): for ops that are not shaped, such as create. */
bool dutfs_shaper_is_down(struct dutfs_shaper *sh);

/* The "shape" member of stats.json (new reference; NULL on ENOMEM). */
struct json_object *dutfs_shaper_stats_json(struct dutfs_shaper *sh);

#endif
