/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory budgets: a memory cgroup whose limit bounds what a group of
 * processes (a PostgreSQL server and its backends) may hold: their private
 * and shared memory and the page cache they fault in.  Pages are charged to
 * the cgroup of the task that first brings them into memory, so a database
 * whose data set is larger than its budget really reads from below the page
 * cache, as on a server with less memory than data.
 *
 * Both hierarchies are supported:
 *  - cgroup v2 (Debian 12's default): a child of <mount>/dutlab, with
 *    "+memory" enabled in the subtree_control of the mount's root and of
 *    dutlab/ (the root and dutlab/ hold no processes, so the "no internal
 *    processes" rule allows it); the limit is memory.max.
 *  - cgroup v1 with a memory controller mount (these build machines): a
 *    child of the calling process's own memory cgroup; the limit is
 *    memory.limit_in_bytes.
 * v2 is used when its root lists "memory" in cgroup.controllers, else v1's
 * memory mount, else budgets are unavailable (-ENOTSUP with the reason).
 *
 * The pure half (memcg.c) parses /proc/self/mountinfo and /proc/self/cgroup
 * text and builds paths; the system half (memcg_linux.c) makes, fills and
 * removes the cgroup.
 */
#ifndef DUT_MEMCG_H
#define DUT_MEMCG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

enum dut_memcg_kind {
	DUT_MEMCG_NONE = 0,
	DUT_MEMCG_V1,
	DUT_MEMCG_V2,
};

struct dut_memcg_mounts {
	char v1_mountpoint[PATH_MAX];   /* "" when no v1 memory controller is mounted */
	char v1_root[PATH_MAX];         /* the v1 mount's root inside its hierarchy */
	char v2_mountpoint[PATH_MAX];   /* "" when no cgroup2 is mounted */
	char v2_root[PATH_MAX];
};

/* A budget cgroup, as made by dut_memcg_create (or rebuilt from its dir). */
struct dut_memcg {
	enum dut_memcg_kind kind;
	char dir[PATH_MAX];
	uint64_t limit_bytes;
};

/* Smallest budget accepted: below it PostgreSQL cannot even start. */
#define DUT_MEMCG_MIN_BYTES (32ull << 20)

/* --- pure --- */

/*
 * Find the cgroup mounts in mountinfo text (the format of
 * /proc/self/mountinfo): the first "cgroup2" mount and the first "cgroup"
 * mount whose super options name the memory controller.  Returns 0 (with
 * empty fields for what is absent) or -EINVAL on a line it cannot read.
 */
int dut_memcg_parse_mounts(const char *mountinfo, struct dut_memcg_mounts *ret);

/*
 * The cgroup of this process in the hierarchy of kind, from
 * /proc/self/cgroup text ("0::/path" for v2; "N:...,memory,...:/path"
 * for v1).  Returns 0 or -ENOENT.
 */
int dut_memcg_self_path(const char *proc_cgroup, enum dut_memcg_kind kind, char *out,
			size_t len);

/*
 * The directory of the child cgroup name: v2 <mountpoint>/dutlab/<name>; v1
 * <mountpoint>/<self relative to the mount's root>/<name>.  name is one path
 * component of [A-Za-z0-9_.-].  Returns 0, -EINVAL (bad name, self outside
 * the mount's root) or -ENAMETOOLONG.
 */
int dut_memcg_child_dir(enum dut_memcg_kind kind, const struct dut_memcg_mounts *m,
			const char *self, const char *name, char *out, size_t len);

/*
 * Is dir a budget cgroup made under a name starting with prefix?  An
 * absolute path without ".", ".." or empty components, below the v1 memory
 * mount or at <v2 mount>/dutlab/<name>, whose last component starts with
 * prefix and is a good name (as dut_memcg_child_dir takes).  For callers
 * that read a recorded directory back (a state file) before acting on it.
 */
bool dut_memcg_dir_is_ours(const struct dut_memcg_mounts *m, const char *dir, const char *prefix);

/* The file that holds the limit: memory.max or memory.limit_in_bytes. */
const char *dut_memcg_limit_file(enum dut_memcg_kind kind);
/* The file that lists member processes: cgroup.procs (both). */
const char *dut_memcg_procs_file(enum dut_memcg_kind kind);
/* The file with the peak usage: memory.peak (v2, 5.19+) or memory.max_usage_in_bytes. */
const char *dut_memcg_peak_file(enum dut_memcg_kind kind);
/* The current usage: memory.current or memory.usage_in_bytes. */
const char *dut_memcg_usage_file(enum dut_memcg_kind kind);
const char *dut_memcg_kind_name(enum dut_memcg_kind kind);

/* --- system --- */

/* The cgroup mounts of this process (/proc/self/mountinfo). */
int dut_memcg_read_mounts(struct dut_memcg_mounts *ret, struct dut_error *err);

/*
 * Where dut_memcg_create(name, limit_bytes) puts the cgroup, without making
 * anything: a caller can record the directory before it exists, so that an
 * interruption between the mkdir and the record leaves nothing unnamed.
 * Same errors as dut_memcg_create.
 */
int dut_memcg_locate(const char *name, uint64_t limit_bytes, struct dut_memcg *ret,
		     struct dut_error *err);
/* Make the located cgroup and set its limit (as dut_memcg_create). */
int dut_memcg_make(const struct dut_memcg *cg, struct dut_error *err);

/*
 * Make the budget cgroup name with limit_bytes (>= DUT_MEMCG_MIN_BYTES).
 * A cgroup of that name left by an earlier run is reused when it holds no
 * processes.  Returns 0 or -errno with err saying why and what to do
 * (-ENOTSUP: no usable memory controller).
 */
int dut_memcg_create(const char *name, uint64_t limit_bytes, struct dut_memcg *ret,
		     struct dut_error *err);

/* Rebuild the handle of an existing budget cgroup from its directory. */
int dut_memcg_open(const char *dir, struct dut_memcg *ret, struct dut_error *err);

/* Move pid (0: the calling process) into the cgroup. */
int dut_memcg_enter(const struct dut_memcg *cg, pid_t pid);

/* Current and peak usage in bytes (peak 0 where the kernel has no peak file). */
int dut_memcg_usage(const struct dut_memcg *cg, uint64_t *ret_current, uint64_t *ret_peak);

/*
 * Send sig to every process in the cgroup (a half-started server after a
 * failed start: the caller made the cgroup and put only that server in it).
 * Returns the number of processes signalled, or -errno.
 */
int dut_memcg_kill(const struct dut_memcg *cg, int sig);

/*
 * Remove the cgroup: processes still in it are moved to its parent first
 * (the caller stops the server before; a straggler must not keep the
 * directory).  A directory that is already gone is success.
 */
int dut_memcg_remove(const struct dut_memcg *cg);

#endif
