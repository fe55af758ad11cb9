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
#include "tools/run/tools_path.h"

struct run_cmd_opts {
	const char *log_path;   /* stdout and stderr appended here; NULL: /dev/null */
	bool interruptible;     /* a received signal stops the child (SIGINT to its group) */
	uint64_t timeout_ns;    /* 0: none; then the same stop sequence */
	uint64_t grace_ns;      /* between SIGINT, SIGTERM and SIGKILL */
	bool no_header;         /* do not write "$ argv..." into the log first */
	bool inherit_output;    /* without log_path: the child writes to our stdout/stderr */
	/* while the child runs (not once it is being stopped): tick(tick_ctx, now)
	 * about every 20 ms; NULL: none (the soak watch, runner_soak.c) */
	void (*tick)(void *tick_ctx, uint64_t now_ns);
	void *tick_ctx;
};

/* Run argv[0] (a path) with argv, wait for it.  *ret_status: exit code, or
 * 128 + signal.  -EINTR when a signal stopped it, -ETIMEDOUT on timeout
 * (the status is still set), -errno when it could not start. */
int run_command(char *const argv[], const struct run_cmd_opts *o, int *ret_status);
/* Start argv[0] in a process group of its own, stdin /dev/null, stdout and
 * stderr appended to log_path (0600, no link followed), or /dev/null, or ours
 * with inherit; default signal dispositions.  Does not wait.  0 or -errno. */
int run_spawn(char *const argv[], const char *log_path, bool inherit, pid_t *ret_pid);
/* The running program's path (readlink /proc/self/exe, without the
 * " (deleted)" of a binary replaced while running); 0 or -errno. */
int run_self_exe(char *buf, size_t len);
uint64_t run_now_ns(void);
/* utime + stime of process pid (/proc/PID/stat), clock ticks; -errno. */
int run_proc_cpu_ticks(pid_t pid, uint64_t *ret);
/* Clock ticks per second (sysconf(_SC_CLK_TCK)). */
long run_clock_ticks(void);
void run_sleep_ms(unsigned ms);

int run_mkdir_p(const char *path, mode_t mode);
/* Whether user can search every existing prefix of path (a child becomes
 * the user and asks access(), so ACLs and groups count): 0, -EACCES with
 * the first prefix it cannot search in ret_bad, -ENOENT (no such user). */
int run_user_can_search(const char *path, const char *user, char *ret_bad, size_t bad_len);
/* 1 when path is a mount point (/proc/self/mountinfo), 0 when not. */
int run_is_mountpoint(const char *path);
/* Copy the regular file src, owned by owner, opened without following a
 * link anywhere, at most max_bytes (the tail is dropped), to a new file dst
 * (mode; a link planted at dst is replaced, not followed): lib/fs_safe. */
int run_copy_owned(const char *src, uid_t owner, const char *dst, mode_t mode, size_t max_bytes);
/* Remove a directory tree fd-relative: no link followed (none in path
 * either), no mount crossed. */
int run_rm_rf(const char *path);
/* Write text to path through an O_EXCL temporary file, fsync and rename
 * (no link in path is followed). */
int run_write_file(const char *path, const char *text, mode_t mode);
/* Modes of what the runner writes into a run directory: files that may
 * hold secrets (logs, the manifest with command lines) and the others. */
#define RUN_DIR_MODE 0750
#define RUN_PRIVATE_FILE_MODE 0600
#define RUN_FILE_MODE 0640
#define RUN_VAR_ROOT_DEFAULT "/var/tmp/dutlab"
/* /var/tmp/dutlab, or $DUTLAB_VAR_ROOT (an absolute path; a test seam). */
const char *run_var_root(void);
/* dut_ensure_private_dir (lib/fs_safe.h). */
int run_ensure_private_dir(const char *path, mode_t mode, char *ret_bad, size_t bad_len);
/* Open a log for appending (O_NOFOLLOW, created RUN_PRIVATE_FILE_MODE): the fd or -errno. */
int run_open_log(const char *path);
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
/* dutfs, pgload and dutprobe for this dutlab (tools/run/tools_path.h says
 * where it looks); err says where it looked when they are not found. */
int run_find_tools(struct run_tools *t, struct dut_error *err);
/* Read the whole output of a command (its log) and tell whether it contains needle. */
bool run_command_mentions(char *const argv[], const char *needle);

#endif
