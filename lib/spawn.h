/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Child processes: the one launcher pgload, the runner, staging, the crash
 * harness, the chart renderer, postgres --version (pgbin) and dutprobe's
 * smartctl use (spawn_linux.c), and its pure parts
 * (spawn.c: the environment and argv it builds, captured-output buffers,
 * wait statuses as numbers and as text).
 *
 * A child is started with fork + exec, never a shell.  Its stdin is
 * /dev/null unless asked; stdout and stderr each go to /dev/null (the
 * default), our own, an fd, a file opened in the child, or a pipe read into
 * a bounded buffer (one shared, or one each); stderr may follow stdout.  Before the exec the child
 * can reset signals (empty mask, SIGPIPE, SIGINT/SIGTERM/SIGHUP default),
 * start a process group of its own, change directory, run a caller's setup
 * hook and become another user.  The start returns once the exec happened
 * or failed (a close-on-exec pipe says which), so a failure to start is
 * known at once and a new process group exists before the caller signals it.
 * The wait can be bounded: a signal at a deadline or when stdout's capture
 * passes its bound, then a grace period after which a child that did not
 * die (stuck in the kernel) is left unreaped and the wait says so.
 *
 * Every function returns 0 or -errno unless it says; none prints.
 */
#ifndef DUT_SPAWN_H
#define DUT_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where one of the child's output streams goes. */
enum dut_spawn_io {
	DUT_SPAWN_NULL = 0,     /* /dev/null */
	DUT_SPAWN_INHERIT,      /* ours */
	DUT_SPAWN_FD,           /* .fd (dup2'ed; the caller keeps and closes it) */
	DUT_SPAWN_PATH,         /* .path opened in the child with .flags | O_WRONLY, .mode */
	DUT_SPAWN_CAPTURE,      /* a pipe into the capture buffer (dut_child_wait reads it) */
	DUT_SPAWN_STDOUT,       /* stderr only: wherever stdout goes */
};

struct dut_spawn_out {
	enum dut_spawn_io how;
	int fd;
	const char *path;
	int flags;              /* e.g. O_CREAT | O_APPEND | O_NOFOLLOW */
	mode_t mode;
};

/*
 * A bounded buffer for captured output, owned by the caller: buf[cap],
 * always NUL-terminated.  keep_tail: the last cap-1 bytes stay (the end of
 * an error output says why); else the first cap-1 (the rest is read and
 * dropped so the child never blocks).  over: bytes were dropped (set by
 * dut_capture_append, cleared by the start).
 */
struct dut_capture {
	char *buf;
	size_t cap;
	size_t len;
	bool keep_tail;
	bool over;
};

/* Another user for the child: groups, then gid, then uid (for real: access() and ACLs count). */
struct dut_spawn_ids {
	uid_t uid;
	gid_t gid;
	const char *groups_of;  /* supplementary groups: this user's (initgroups); NULL: none */
};

/* Signal state the child resets before the exec (else it inherits ours; handlers reset anyway). */
enum {
	DUT_SPAWN_SIG_UNBLOCK = 1 << 0,  /* an empty signal mask */
	DUT_SPAWN_SIG_PIPE = 1 << 1,     /* SIGPIPE default (we may ignore it) */
	DUT_SPAWN_SIG_STOPS = 1 << 2,    /* SIGINT, SIGTERM, SIGHUP default */
	DUT_SPAWN_SIG_ALL = DUT_SPAWN_SIG_UNBLOCK | DUT_SPAWN_SIG_PIPE | DUT_SPAWN_SIG_STOPS,
};

struct dut_spawn_opts {
	const char *path;               /* the program to run; NULL: argv[0] */
	bool search_path;               /* argv[0] is looked up in $PATH (execvpe) */
	const char *const *env_add;     /* "NAME=value" entries replacing or added to ours; NULL-terminated */
	bool stdin_inherit;             /* else /dev/null */
	struct dut_spawn_out out, err;  /* zero: both /dev/null */
	struct dut_capture *capture;    /* for DUT_SPAWN_CAPTURE (stdout and stderr share it; emptied first) */
	struct dut_capture *err_capture;        /* err CAPTURE into its own pipe and buffer; NULL: shares capture */
	unsigned signals;               /* DUT_SPAWN_SIG_*: what the child resets */
	bool new_pgroup;                /* setpgid(0, 0): a group of its own, to signal as a whole */
	int cwd_fd;                     /* > 0: fchdir there (0: unchanged; stdin is never a directory) */
	const struct dut_spawn_ids *ids;        /* NULL: our user */
	/* In the child, after the redirections and before the ids change: 0 or
	 * -errno (the child then exits 126).  May print to the child's stderr. */
	int (*setup)(void *ctx);
	void *setup_ctx;
};

/* What failed in the child before its program ran. */
enum dut_spawn_fail {
	DUT_SPAWN_OK = 0,
	DUT_SPAWN_FAIL_REDIRECT,        /* opening /dev/null or out.path/err.path, dup2 */
	DUT_SPAWN_FAIL_SETUP,           /* the setup hook (exit status 126) */
	DUT_SPAWN_FAIL_IDS,             /* initgroups/setgroups, setgid, setuid */
	DUT_SPAWN_FAIL_EXEC,            /* the exec itself (ENOENT, EACCES, ENOEXEC) */
};

struct dut_child {
	pid_t pid;
	/* set by the start: why the child exited (127, 126 for the setup) before
	 * its program ran, and the errno; the child still has to be waited for */
	enum dut_spawn_fail fail;
	int fail_errno;
	/* set by dut_child_wait */
	int status;                     /* the wait status (WIFEXITED...) */
	uint64_t cpu_ns;                /* user + system of the child and the children it waited for */
	bool timed_out;                 /* the timeout's signal was sent */
	bool overflowed;                /* killed because stdout's capture passed its bound */
	bool abandoned;                 /* did not die within the grace after the kill: not
					 * reaped (status -1, cpu_ns 0); a zombie once it dies */
	/* private */
	int out_fd;                     /* read end of the capture pipe, or -1 */
	int err_fd;                     /* read end of stderr's own capture pipe, or -1 */
	struct dut_capture *capture, *err_capture;
};

/*
 * Start argv[0] with argv.  0 once the child exists (check ret->fail: it
 * may have failed before its program ran), -errno when no child was made
 * (pipe, fork, ENOMEM, E2BIG).  Wait for it with dut_child_wait, or poll
 * it with dut_wait_pid_nohang and close ret->out_fd with dut_child_release.
 */
int dut_spawn(char *const argv[], const struct dut_spawn_opts *o, struct dut_child *ret);

/*
 * Run fn(ctx) in a child (the same options; search_path and env_add do not
 * apply): its return value is the child's exit status.  fn writes to fd 1
 * to report (out CAPTURE).  0 once the child exists, as dut_spawn.
 */
int dut_spawn_call(int (*fn)(void *ctx), void *ctx, const struct dut_spawn_opts *o, struct dut_child *ret);

/*
 * Read the capture until EOF and reap the child: status, cpu_ns and
 * timed_out in c.  timeout_ns 0: none; else kill_sig (0: SIGKILL) goes to
 * the child when it has run that long (then it is waited for without bound).
 */
int dut_child_wait(struct dut_child *c, uint64_t timeout_ns, int kill_sig);

/*
 * The bounds of dut_child_wait_limits.  The kill (kill_sig, 0: SIGKILL) is
 * sent once: at timeout_ns after the wait began (0: none), or as soon as
 * stdout's capture drops a byte when kill_on_overflow (it needs out CAPTURE;
 * then c->overflowed, not c->timed_out).  grace_ns > 0 bounds what follows
 * the kill: the capture is read and the child waited for until then, after
 * which the pipes are closed and the child is left (c->abandoned, 0
 * returned).  grace_ns 0: without bound.
 */
struct dut_wait_limits {
	uint64_t timeout_ns;
	int kill_sig;
	bool kill_on_overflow;
	uint64_t grace_ns;
};

/* dut_child_wait with those bounds (lim NULL: none); 0 or -errno from wait4. */
int dut_child_wait_limits(struct dut_child *c, const struct dut_wait_limits *lim);

/* Close what the start left open for a child not waited for with dut_child_wait. */
void dut_child_release(struct dut_child *c);

/* waitpid(pid, WNOHANG) (EINTR retried): 1 reaped with the wait status in
 * *ret_status, 0 still running, -errno (-ECHILD). */
int dut_wait_pid_nohang(pid_t pid, int *ret_status);

/* spawn.c (pure) --------------------------------------------------------- */

/* The exit code of a wait status, or 128 + the signal that killed it (the shell's convention). */
int dut_wait_code(int status);

/* "exit status N" or "killed by signal S (Name)", for messages; cut at len. */
void dut_wait_describe(int status, char *buf, size_t len);

/* Append n bytes to c as its keep_tail says (c->over when some are dropped); c->buf stays NUL-terminated. */
void dut_capture_append(struct dut_capture *c, const char *data, size_t n);

/*
 * envp for the child: env without the names add replaces, then add (both
 * NULL-terminated "NAME=value"; add may be NULL).  The array is malloc'ed,
 * its strings are env's and add's: free only the array.  NULL on ENOMEM.
 */
char **dut_spawn_env(char *const env[], const char *const add[]);

/*
 * argv run as user through runuser(1): "runuser -u USER -- argv..." (user
 * NULL: argv alone), into out[n] (NULL-terminated; the strings are not
 * copied).  -E2BIG when it does not fit.
 */
int dut_spawn_argv_as(const char *user, char *const argv[], char *out[], size_t n);

#endif
