/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs command line (pure: no I/O); dutfs(1) documents it:
 *   dutfs BACKING_DIR MOUNTPOINT [--trace FILE] [--view device|syscall] [-f]
 *         [--pidfile FILE] [--threads N] [-o FUSE_OPTS] [--debug]
 *         [--backing-cache drop|keep] [--stats-mode MODE]
 *         [--shape RULES.ini [--relmap FILE] [--preimage-max SIZE]]
 *         [--transport dev|uring|auto] [--uring-entries N] [--nice N]
 * Options may come before, between or after the two directories; "--x=v"
 * and "--x v" are both accepted; several -o are joined with commas.
 */
#ifndef DUTFS_CLI_H
#define DUTFS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

enum dutfs_view {
	DUTFS_VIEW_DEVICE = 0,  /* page cache + writeback cache: trace = what reaches the device */
	DUTFS_VIEW_SYSCALL,     /* direct_io on every open: trace = every read/write issued */
};

/*
 * How requests travel (fuse/uring.c): /dev/fuse reads and writes, FUSE over
 * io_uring, or io_uring when the kernel already offers it.
 */
enum dutfs_transport_mode {
	DUTFS_TRANSPORT_DEV = 0,
	DUTFS_TRANSPORT_URING,
	DUTFS_TRANSPORT_AUTO,
};
#define DUTFS_URING_ENTRIES_MAX 64u

#define DUTFS_THREADS_DEFAULT 16u
#define DUTFS_THREADS_MAX 256u
/*
 * The nice value of the threads that serve requests (main.c, serving_priority)
 * when --nice is not given: the caller's, unchanged (the field then reads 0).
 * -10 moved out-of-cache select-only by a few percent at best on 2026-12-07,
 * within that day's noise (docs/bench-dutfs.md): a choice, not the default.
 */
#define DUTFS_NICE_DEFAULT 0
/* stats.json: only the mounting user reads it unless --stats-mode says so (issue #27) */
#define DUTFS_STATS_MODE_DEFAULT 0400u

struct dutfs_cli {
	const char *backing;     /* as given (argv storage) */
	const char *mountpoint;
	const char *trace_path;  /* NULL: tracing off */
	const char *pidfile;
	const char *shape_path;  /* NULL: no shaping */
	const char *relmap_path; /* NULL: no relation map (only with shape_path) */
	uint64_t preimage_max_bytes; /* 0: the default (only with shape_path) */
	uint64_t trace_max_bytes; /* --trace-max: 0 = one unbounded trace file */
	unsigned trace_segments;  /* --trace-segments: 0 = the default */
	enum dutfs_view view;
	bool backing_cache_given; /* --backing-cache drop|keep: obsolete, warned about and ignored */
	bool foreground;
	bool debug;
	bool help;
	bool version;
	unsigned threads;        /* max worker threads */
	unsigned stats_mode;     /* --stats-mode: permission bits of .dutfs/stats.json */
	enum dutfs_transport_mode transport;
	bool transport_given;    /* --transport on the command line (else $DUTFS_TRANSPORT, else dev) */
	unsigned uring_entries;  /* ring entries per ring thread; 0: the default (uring.c) */
	int nice;                /* --nice: -20 to 19, the serving threads' nice value */
	bool nice_given;         /* --nice on the command line (else the caller's stays) */
	char *fuse_opts;         /* joined -o values, NULL if none; owned */
};

/* Parse argv[1..argc-1].  On error returns -EINVAL and explains in err. */
int dutfs_cli_parse(int argc, char *const argv[], struct dutfs_cli *ret, struct dut_error *err);
void dutfs_cli_free(struct dutfs_cli *c);
const char *dutfs_view_name(enum dutfs_view v);
const char *dutfs_transport_mode_name(enum dutfs_transport_mode m);
/* "dev", "uring" or "auto"; 0, or -EINVAL with err set (what names the value: opt) */
int dutfs_transport_mode_parse(const char *opt, const char *v, enum dutfs_transport_mode *ret,
			       struct dut_error *err);
extern const char dutfs_cli_usage[];

#endif
