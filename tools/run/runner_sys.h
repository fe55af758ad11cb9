/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runner's syscalls: children (spawn.c), files, mounts and processes
 * (runner_sys.c).  Every function returns 0 or -errno unless it says.
 */
#ifndef DUTLAB_RUN_RUNNER_SYS_H
#define DUTLAB_RUN_RUNNER_SYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"
#include "tools/run/runner.h"

struct run_cmd_opts {
	const char *log_path;   /* stdout and stderr appended here; NULL: /dev/null */
	bool interruptible;     /* a received signal stops the child (SIGINT to its group) */
	uint64_t timeout_ns;    /* 0: none; then the same stop sequence */
	uint64_t grace_ns;      /* between SIGINT, SIGTERM and SIGKILL */
	bool no_header;         /* do not write "$ argv..." into the log first */
	bool inherit_output;    /* without log_path: the child writes to our stdout/stderr */
};

/* Run argv[0] (a path) with argv, wait for it.  *ret_status: exit code, or
 * 128 + signal.  -EINTR when a signal stopped it, -ETIMEDOUT on timeout
 * (the status is still set), -errno when it could not start. */
int run_command(char *const argv[], const struct run_cmd_opts *o, int *ret_status);
uint64_t run_now_ns(void);
void run_sleep_ms(unsigned ms);

int run_mkdir_p(const char *path, mode_t mode);
/* Let user postgres walk down to path: o+x on path's ancestors. */
void run_allow_traverse(const char *path);
/* 1 when path is a mount point (/proc/self/mountinfo), 0 when not. */
int run_is_mountpoint(const char *path);
int run_copy_file(const char *src, const char *dst);
/* Remove a directory tree without following symlinks or crossing mounts. */
int run_rm_rf(const char *path);
/* Write text to path through a temporary file, fsync and rename. */
int run_write_atomic(const char *path, const char *text);
/* Free bytes (for root: f_bfree) on the filesystem
 * of path or of its nearest existing ancestor. */
int run_free_bytes(const char *path, uint64_t *ret);
/* Unmount (retrying while busy, up to timeout), lazily as a last resort (err says so). */
int run_umount(const char *mnt, uint64_t timeout_ns, struct dut_error *err);
/* Wait until pid no longer exists; -ETIMEDOUT. */
int run_wait_gone(pid_t pid, uint64_t timeout_ns);
int run_read_pidfile(const char *path, pid_t *ret);
/* Whether pid is a running dutlab program (/proc/PID/comm). */
bool run_is_dutlab(pid_t pid);
/* Write "CMD\n" to MNT/.dutfs/control and read the answer back: 0 when "ok". */
int run_dutfs_control(const char *mnt, const char *cmd, struct dut_error *err);
/* snprintf for paths: -ENAMETOOLONG when the result did not fit (the
 * buffer then holds a truncated string that names nothing we made). */
int run_pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether the executable at path exists. */
bool run_is_executable(const char *path);
/* The build tree the running program belongs to: $DUT_BUILD_ROOT, else two
 * levels above /proc/self/exe (build/tools/dutlab -> build). */
int run_build_root(char *buf, size_t len);
/* Read the whole output of a command (its log) and tell whether it contains needle. */
bool run_command_mentions(char *const argv[], const char *needle);

#endif
