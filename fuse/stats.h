/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live I/O statistics behind MNT/.dutfs/stats.json (pure: no I/O).
 *
 * Per PostgreSQL file class and per file: operations, bytes and latency of the
 * backing calls, for reads, writes and syncs.  Class histograms live in
 * per-thread blocks (struct dutfs_stats_thread): a FUSE worker adds to its own
 * block without locks; a reader snapshots and merges them (lib/hist.h).
 * Per-file counters are relaxed atomics; per-file histograms are allocated on
 * a file's first I/O and guarded by a per-file spinlock (files are many, so
 * per-thread per-file histograms would cost threads x files x 20 KiB).
 *
 * File entries are indexed by trace file id in a two-level table whose chunks
 * never move, so the I/O path reads it without a lock.
 */
#ifndef DUTFS_STATS_H
#define DUTFS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/pgpath.h"

struct json_object;

enum dutfs_stat_kind {
	DUTFS_STAT_READ = 0,
	DUTFS_STAT_WRITE,
	DUTFS_STAT_SYNC,
	DUTFS_STAT_KINDS
};

#define DUTFS_STATS_CHUNK 1024u
#define DUTFS_STATS_NCHUNKS 1024u
#define DUTFS_STATS_MAX_ID (DUTFS_STATS_CHUNK * DUTFS_STATS_NCHUNKS - 1u)

struct dutfs_stats;
struct dutfs_stats_thread;

int dutfs_stats_new(uint64_t start_ns, struct dutfs_stats **ret);
void dutfs_stats_free(struct dutfs_stats *st);

/*
 * A block for the calling thread.  Blocks are owned by st; a thread that
 * exits gives its block back with dutfs_stats_thread_put (its counts stay),
 * and the next new thread reuses it.
 */
int dutfs_stats_thread_get(struct dutfs_stats *st, struct dutfs_stats_thread **ret);
void dutfs_stats_thread_put(struct dutfs_stats_thread *t);

/* Register file id (1..DUTFS_STATS_MAX_ID).  -EEXIST if known, -ERANGE if too big. */
int dutfs_stats_add_file(struct dutfs_stats *st, uint32_t id, const char *path,
			 const struct dut_pg_file *pg);

/* Account one I/O.  id 0 or an unknown id counts under class "other" only. */
void dutfs_stats_record(struct dutfs_stats *st, struct dutfs_stats_thread *t, uint32_t id,
			enum dutfs_stat_kind kind, uint64_t bytes, uint64_t lat_ns, int failed);

/* Facts about the mount that the caller adds to the document. */
struct dutfs_stats_info {
	uint64_t now_ns;          /* same clock as start_ns */
	const char *view;         /* "device" | "syscall" */
	int trace_file;           /* mounted with --trace */
	int tracing;              /* trace on (not paused) */
	uint64_t trace_written, trace_dropped;
	uint64_t trace_max_bytes;  /* --trace-max (0: unbounded) */
	uint64_t trace_rotations;  /* segments started after the first */
	const char *last_mark;    /* NULL if none */
	/* FUSE requests served, by kind: "requests": { names[i]: counts[i] } (nreq 0: omitted) */
	const char *const *req_names;
	const uint64_t *req_counts;
	size_t nreq;
	/* "shape": the shaper's document (--shape); render takes the reference; NULL: omitted */
	struct json_object *shape;
	/* "control": the control directory's own counters (open files, snapshots); same rules */
	struct json_object *control;
	/* "transport": /dev/fuse or io_uring, and why (fuse/uring.h); same rules */
	struct json_object *transport;
};

/* Render the JSON document into a malloc'd NUL-terminated buffer. */
int dutfs_stats_render(struct dutfs_stats *st, const struct dutfs_stats_info *info,
		       char **ret_json, size_t *ret_len);

#endif
