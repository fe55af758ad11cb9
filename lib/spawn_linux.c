/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The launcher of lib/spawn.h: fork, the child's set-up, exec (or a
 * function), and the wait.  Between fork and exec the child calls only
 * what it must (open, dup2, signal calls, setpgid, fchdir, the id calls,
 * the exec); the environment is built before the fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/spawn.h"

extern char **environ;

/* What the child tells the parent through the close-on-exec pipe when it fails before the exec. */
struct child_fail {
	int fail;
	int err;
};

static void child_die(int status_fd, enum dut_spawn_fail fail, int err)
{
	struct child_fail f = { .fail = (int)fail, .err = err };

	if (write(status_fd, &f, sizeof(f)) < 0) {
		/* nothing to do: the parent then sees exit status 127/126 alone */
	}
	_exit(fail == DUT_SPAWN_FAIL_SETUP ? 126 : 127);
}

/* dup2 that also works when from == to (then only close-on-exec is cleared). */
static int move_fd(int from, int to)
{
	if (from == to) {
		int fl = fcntl(from, F_GETFD);

		return fl < 0 || fcntl(from, F_SETFD, fl & ~FD_CLOEXEC) < 0 ? -1 : 0;
	}
	return dup2(from, to) < 0 ? -1 : 0;
}

/* One output stream of the child onto target (1 or 2); -1 with errno. */
static int child_output(const struct dut_spawn_out *s, int target, int capture_w)
{
	int fd;

	switch (s->how) {
	case DUT_SPAWN_INHERIT:
		return 0;
	case DUT_SPAWN_FD:
		return move_fd(s->fd, target);
	case DUT_SPAWN_CAPTURE:
		return capture_w < 0 ? (errno = EINVAL, -1) : move_fd(capture_w, target);
	case DUT_SPAWN_STDOUT:
		return target == STDERR_FILENO ? move_fd(STDOUT_FILENO, STDERR_FILENO) : (errno = EINVAL, -1);
	case DUT_SPAWN_PATH:
		fd = open(s->path, s->flags | O_WRONLY | O_CLOEXEC, s->mode);
		break;
	case DUT_SPAWN_NULL:
	default:
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	}
	if (fd < 0)
		return -1;
	return move_fd(fd, target);
}

static int child_ids(const struct dut_spawn_ids *ids)
{
	if (ids->groups_of ? initgroups(ids->groups_of, ids->gid) < 0 : setgroups(0, NULL) < 0)
		return -1;
	if (setgid(ids->gid) < 0 || setuid(ids->uid) < 0)
		return -1;
	return 0;
}

/* In the child: everything before the exec; returns only on success. */
static void child_prepare(const struct dut_spawn_opts *o, int status_fd, int capture_w, int err_capture_w)
{
	int r;

	if (!o->stdin_inherit) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || move_fd(fd, STDIN_FILENO) < 0)
			child_die(status_fd, DUT_SPAWN_FAIL_REDIRECT, errno);
	}
	if (child_output(&o->out, STDOUT_FILENO, capture_w) < 0 ||
	    child_output(&o->err, STDERR_FILENO, err_capture_w >= 0 ? err_capture_w : capture_w) < 0)
		child_die(status_fd, DUT_SPAWN_FAIL_REDIRECT, errno);
	if (o->signals & DUT_SPAWN_SIG_PIPE)
		signal(SIGPIPE, SIG_DFL);
	if (o->signals & DUT_SPAWN_SIG_STOPS) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
	if (o->signals & DUT_SPAWN_SIG_UNBLOCK) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if (o->new_pgroup && setpgid(0, 0) < 0)
		child_die(status_fd, DUT_SPAWN_FAIL_SETUP, errno);
	if (o->cwd_fd > 0 && fchdir(o->cwd_fd) < 0)
		child_die(status_fd, DUT_SPAWN_FAIL_SETUP, errno);
	if (o->setup && (r = o->setup(o->setup_ctx)) < 0)
		child_die(status_fd, DUT_SPAWN_FAIL_SETUP, -r);
	if (o->ids && child_ids(o->ids) < 0)
		child_die(status_fd, DUT_SPAWN_FAIL_IDS, errno);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

/* stderr into a pipe and buffer of its own */
static bool err_own_capture(const struct dut_spawn_opts *o)
{
	return o->err.how == DUT_SPAWN_CAPTURE && o->err_capture;
}

/* the shared capture pipe: stdout's, and stderr's unless it has its own */
static bool wants_capture(const struct dut_spawn_opts *o)
{
	return o->out.how == DUT_SPAWN_CAPTURE || (o->err.how == DUT_SPAWN_CAPTURE && !o->err_capture);
}

static void capture_reset(struct dut_capture *c)
{
	if (c && c->buf && c->cap) {
		c->len = 0;
		c->buf[0] = '\0';
	}
	if (c)
		c->over = false;
}

/* The common start: exec argv (fn NULL) or run fn(ctx). */
static int start(char *const argv[], int (*fn)(void *), void *ctx, const struct dut_spawn_opts *o,
		 struct dut_child *ret)
{
	static const struct dut_spawn_opts none = { 0 };
	int status_p[2] = { -1, -1 }, cap_p[2] = { -1, -1 }, err_p[2] = { -1, -1 }, e;
	struct dut_child c = { .pid = -1, .out_fd = -1, .err_fd = -1 };
	struct child_fail f;
	char **envp = NULL;
	ssize_t n;
	pid_t pid;

	if (!o)
		o = &none;
	if (wants_capture(o) && !o->capture)
		return -EINVAL;
	capture_reset(o->capture);
	if (err_own_capture(o))
		capture_reset(o->err_capture);
	if (!fn && !(envp = dut_spawn_env(environ, o->env_add)))
		return -ENOMEM;
	if (pipe2(status_p, O_CLOEXEC) < 0 || (wants_capture(o) && pipe2(cap_p, O_CLOEXEC) < 0) ||
	    (err_own_capture(o) && pipe2(err_p, O_CLOEXEC) < 0)) {
		e = errno;
		close_pair(status_p);
		close_pair(cap_p);
		free(envp);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		close_pair(status_p);
		close_pair(cap_p);
		close_pair(err_p);
		free(envp);
		return -e;
	}
	if (pid == 0) {
		close(status_p[0]);
		if (cap_p[0] >= 0)
			close(cap_p[0]);
		if (err_p[0] >= 0)
			close(err_p[0]);
		child_prepare(o, status_p[1], cap_p[1], err_p[1]);
		if (fn) {
			close(status_p[1]);
			_exit(fn(ctx) & 0xff);
		}
		if (o->search_path)
			execvpe(o->path ? o->path : argv[0], argv, envp);
		else
			execve(o->path ? o->path : argv[0], argv, envp);
		child_die(status_p[1], DUT_SPAWN_FAIL_EXEC, errno);
	}
	free(envp);
	close(status_p[1]);
	if (cap_p[1] >= 0)
		close(cap_p[1]);
	if (err_p[1] >= 0)
		close(err_p[1]);
	/* EOF: the exec happened (or fn runs); a record: what failed before */
	while ((n = read(status_p[0], &f, sizeof(f))) < 0 && errno == EINTR)
		;
	close(status_p[0]);
	if (n == (ssize_t)sizeof(f)) {
		c.fail = (enum dut_spawn_fail)f.fail;
		c.fail_errno = f.err;
	}
	c.pid = pid;
	c.out_fd = cap_p[0];
	c.capture = o->capture;
	c.err_fd = err_p[0];
	c.err_capture = err_p[0] >= 0 ? o->err_capture : NULL;
	*ret = c;
	return 0;
}

int dut_spawn(char *const argv[], const struct dut_spawn_opts *o, struct dut_child *ret)
{
	if (!argv || !argv[0])
		return -EINVAL;
	return start(argv, NULL, NULL, o, ret);
}

int dut_spawn_call(int (*fn)(void *ctx), void *ctx, const struct dut_spawn_opts *o, struct dut_child *ret)
{
	if (!fn)
		return -EINVAL;
	return start(NULL, fn, ctx, o, ret);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* poll timeout in ms until deadline (0: none, -1 forever). */
static int ms_left(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = now_ns();
	if (now >= deadline)
		return 0;
	return (int)((deadline - now + 999999) / 1000000 > 60000 ? 60000 : (deadline - now + 999999) / 1000000);
}

/* One wait: its bounds and where it stands. */
struct waiter {
	struct dut_child *c;
	struct dut_wait_limits lim;
	uint64_t deadline;      /* the timeout's moment; 0: none */
	uint64_t grace_end;     /* after the kill with a grace: when we stop waiting; else 0 */
	bool killed;
};

static void kill_once(struct waiter *w, bool overflow)
{
	if (w->killed)
		return;
	kill(w->c->pid, w->lim.kill_sig ? w->lim.kill_sig : SIGKILL);
	w->killed = true;
	if (overflow)
		w->c->overflowed = true;
	else
		w->c->timed_out = true;
	if (w->lim.grace_ns)
		w->grace_end = now_ns() + w->lim.grace_ns;
}

/* The next moment something is due: the timeout before the kill, the end of the grace after it; 0: none. */
static uint64_t due(const struct waiter *w)
{
	return w->killed ? w->grace_end : w->deadline;
}

/* Act on what is due: the timeout sends the kill; true when the grace is over (stop waiting). */
static bool overdue(struct waiter *w)
{
	uint64_t d = due(w);

	if (!d || now_ns() < d)
		return false;
	if (!w->killed) {
		kill_once(w, false);
		return false;
	}
	return true;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* Read what one pipe has into its capture; close it at EOF or an error. */
static void read_into(int *fd, struct dut_capture *cap)
{
	char chunk[16384];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0)
		close_fd(fd);
	else
		dut_capture_append(cap, chunk, (size_t)n);
}

/* Read the capture pipes to EOF or to the end of the grace (then they are closed unread). */
static void drain(struct waiter *w)
{
	struct dut_child *c = w->c;

	while (c->out_fd >= 0 || c->err_fd >= 0) {
		struct pollfd p[2] = { { .fd = c->out_fd, .events = POLLIN }, { .fd = c->err_fd, .events = POLLIN } };
		int r = poll(p, 2, ms_left(due(w)));

		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && p[0].revents)
			read_into(&c->out_fd, c->capture);
		if (r > 0 && p[1].revents)
			read_into(&c->err_fd, c->err_capture);
		if (w->lim.kill_on_overflow && c->capture && c->capture->over)
			kill_once(w, true);
		/* checked on every turn: a child that writes all the time still meets its deadline */
		if (overdue(w))
			break;
	}
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
}

/*
 * While something is due (the timeout, the grace): until the child has
 * exited (true) or the grace is over (false).  Nothing due: true at once
 * (the wait4 that follows blocks).
 */
static bool wait_exit(struct waiter *w)
{
	int pfd = (int)syscall(SYS_pidfd_open, w->c->pid, 0);
	bool exited = true;

	while (due(w)) {
		siginfo_t si;

		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			int r = poll(&p, 1, ms_left(due(w)));

			if (r > 0 || (r < 0 && errno != EINTR))
				break;
		} else {
			/* no pidfd (kernel < 5.3): look every 10 ms */
			si.si_pid = 0;
			if (waitid(P_PID, (id_t)w->c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
				break;
			if (si.si_pid == w->c->pid)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		}
		if (overdue(w)) {
			exited = false;
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return exited;
}

int dut_child_wait_limits(struct dut_child *c, const struct dut_wait_limits *lim)
{
	struct waiter w = { .c = c };
	struct rusage ru;
	pid_t got;
	int st;

	if (lim)
		w.lim = *lim;
	w.deadline = w.lim.timeout_ns ? now_ns() + w.lim.timeout_ns : 0;
	c->timed_out = c->overflowed = c->abandoned = false;
	drain(&w);
	if (!wait_exit(&w)) {
		/* the grace is over: one last look, then the child is left where it is */
		while ((got = wait4(c->pid, &st, WNOHANG, &ru)) < 0 && errno == EINTR)
			;
		if (got <= 0) {
			c->abandoned = true;
			c->status = -1;
			c->cpu_ns = 0;
			return 0;
		}
	} else {
		while (wait4(c->pid, &st, 0, &ru) < 0)
			if (errno != EINTR)
				return -errno;
	}
	c->status = st;
	/* Linux: a child's rusage includes the children it waited for */
	c->cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
		    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
	return 0;
}

int dut_child_wait(struct dut_child *c, uint64_t timeout_ns, int kill_sig)
{
	const struct dut_wait_limits lim = { .timeout_ns = timeout_ns, .kill_sig = kill_sig };

	return dut_child_wait_limits(c, &lim);
}

void dut_child_release(struct dut_child *c)
{
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
}

int dut_wait_pid_nohang(pid_t pid, int *ret_status)
{
	int st;
	pid_t w;

	while ((w = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (w < 0)
		return -errno;
	if (w == 0)
		return 0;
	*ret_status = st;
	return 1;
}
