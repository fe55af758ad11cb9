/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs command line (pure: no I/O).  The syntax is fixed by CONTRACTS.md:
 *   dutfs BACKING_DIR MOUNTPOINT [--trace FILE] [--view device|syscall] [-f]
 *         [--pidfile FILE] [--threads N] [-o FUSE_OPTS] [--debug]
 *         [--backing-cache drop|keep] [--stats-mode MODE]
 *         [--shape RULES.ini [--relmap FILE] [--preimage-max SIZE]]
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

#define DUTFS_THREADS_DEFAULT 16u
#define DUTFS_THREADS_MAX 256u
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
	enum dutfs_view view;
	bool backing_cache_given; /* --backing-cache drop|keep: obsolete, warned about and ignored */
	bool foreground;
	bool debug;
	bool help;
	bool version;
	unsigned threads;        /* max worker threads */
	unsigned stats_mode;     /* --stats-mode: permission bits of .dutfs/stats.json */
	char *fuse_opts;         /* joined -o values, NULL if none; owned */
};

/* Parse argv[1..argc-1].  On error returns -EINVAL and explains in err. */
int dutfs_cli_parse(int argc, char *const argv[], struct dutfs_cli *ret, struct dut_error *err);
void dutfs_cli_free(struct dutfs_cli *c);
const char *dutfs_view_name(enum dutfs_view v);
extern const char dutfs_cli_usage[];

#endif
