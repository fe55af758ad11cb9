/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real struct dp_exec_ops: posix_spawnp() with an argv (never a shell),
 * stdin from /dev/null, stdout and stderr through pipes read with poll()
 * until both close, bounded in size and in time.  A child still running at
 * the deadline, or whose stdout passes the bound, is killed (SIGKILL) and
 * reaped; one stuck in the kernel (a USB command that does not return) gets
 * a further 2 s to die before we stop waiting for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "probe/identify/inner.h"

extern char **environ;

/* smartctl -j -a prints 5-60 kB; a USB command can take seconds */
#define SMARTCTL_TIMEOUT_MS 20000
#define SMARTCTL_MAX_OUT (1u << 20)
#define SMARTCTL_MAX_ERR (16u << 10)


struct sink {
	int fd;
	char *buf;
	size_t len, cap, max;
	bool over;                   /* more came than max */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Read what is there; close the fd at EOF.  Bytes past max are dropped (over = true). */
static int sink_read(struct sink *s)
{
	char tmp[16384];
	ssize_t n = read(s->fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	size_t keep = (size_t)n;
	if (s->len + keep > s->max) {
		keep = s->max - s->len;
		s->over = true;
	}
	if (s->len + keep + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 16384;
		char *nb;

		while (cap < s->len + keep + 1)
			cap *= 2;
		nb = realloc(s->buf, cap);
		if (!nb)
			return -ENOMEM;
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, tmp, keep);
	s->len += keep;
	return 0;
}

static int sink_finish(struct sink *s, char **ret, size_t *ret_len)
{
	if (!s->buf && !(s->buf = malloc(1)))
		return -ENOMEM;
	s->buf[s->len] = '\0';
	*ret = TAKE_PTR(s->buf);
	*ret_len = s->len;
	return 0;
}

/* waitpid with a bound: true when reaped (status in *st). */
static bool reap(pid_t pid, int *st, uint64_t wait_ms)
{
	uint64_t end = now_ms() + wait_ms;

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (now_ms() >= end)
			return false;
		usleep(10000);
	}
}

static int spawn_run(void *ctx, const char *const argv[], const struct dp_exec_limits *lim,
		     struct dp_exec_result *ret)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	struct sink out = { .fd = -1, .max = lim->max_out_bytes };
	struct sink err = { .fd = -1, .max = lim->max_err_bytes };
	enum dp_exec_outcome outcome = DP_EXEC_EXITED;
	posix_spawn_file_actions_t fa;
	uint64_t deadline;
	pid_t pid;
	int st = 0, r;

	(void)ctx;
	if (pipe2(outp, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		r = -errno;
		goto out_close_pipes;
	}
	r = -posix_spawn_file_actions_init(&fa);
	if (r < 0)
		goto out_close_pipes;
	if ((r = -posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) < 0 ||
	    (r = -posix_spawn_file_actions_adddup2(&fa, outp[1], 1)) < 0 ||
	    (r = -posix_spawn_file_actions_adddup2(&fa, errp[1], 2)) < 0)
		goto out_destroy_fa;
	/* posix_spawnp reports exec failures (ENOENT, EACCES) as its return value */
	r = -posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	if (r < 0)
		goto out_destroy_fa;
	posix_spawn_file_actions_destroy(&fa);
	close(outp[1]);
	close(errp[1]);
	out.fd = outp[0];
	err.fd = errp[0];

	deadline = now_ms() + lim->timeout_ms;
	while (out.fd >= 0 || err.fd >= 0) {
		struct pollfd p[2] = { { .fd = out.fd, .events = POLLIN }, { .fd = err.fd, .events = POLLIN } };
		uint64_t t = now_ms();
		int n;

		if (t >= deadline) {
			outcome = DP_EXEC_TIMED_OUT;
			break;
		}
		n = poll(p, 2, (int)(deadline - t));
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (n <= 0)
			continue;
		if (p[0].revents && (r = sink_read(&out)) < 0)
			break;
		if (p[1].revents && (r = sink_read(&err)) < 0)
			break;
		if (out.over) {
			outcome = DP_EXEC_OUTPUT_TOO_BIG;
			break;
		}
		r = 0;
	}
	if (out.fd >= 0)
		close(out.fd);
	if (err.fd >= 0)
		close(err.fd);
	if (outcome == DP_EXEC_EXITED && r == 0) {
		/* both pipes closed: it is exiting, or it closed them and runs on */
		uint64_t t = now_ms();

		if (!reap(pid, &st, t < deadline ? deadline - t : 0))
			outcome = DP_EXEC_TIMED_OUT;
	}
	if (outcome != DP_EXEC_EXITED || r < 0) {
		kill(pid, SIGKILL);
		/* one stuck in the kernel (D state) is left behind rather than hang identify */
		reap(pid, &st, 2000);
	}
	if (r < 0) {
		free(out.buf);
		free(err.buf);
		return r;
	}
	memset(ret, 0, sizeof(*ret));
	ret->outcome = outcome;
	if (outcome == DP_EXEC_EXITED) {
		if (WIFSIGNALED(st)) {
			ret->outcome = DP_EXEC_SIGNALLED;
			ret->status = WTERMSIG(st);
		} else {
			ret->status = WEXITSTATUS(st);
		}
	}
	if ((r = sink_finish(&out, &ret->out, &ret->out_len)) < 0 ||
	    (r = sink_finish(&err, &ret->err, &ret->err_len)) < 0) {
		free(out.buf);
		free(err.buf);
		dp_exec_result_free(ret);
		return r;
	}
	return 0;

out_destroy_fa:
	posix_spawn_file_actions_destroy(&fa);
out_close_pipes:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return r;
}

void dp_exec_result_free(struct dp_exec_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	r->out_len = r->err_len = 0;
}

const struct dp_exec_ops dp_exec_spawn_ops = {
	.name = "posix_spawn",
	.run = spawn_run,
};

void dp_inner_env_default(struct dp_inner_env *env)
{
	const char *p = getenv("DUTPROBE_SMARTCTL");

	memset(env, 0, sizeof(*env));
	env->ops = &dp_exec_spawn_ops;
	env->smartctl = p && *p ? p : "smartctl";
	env->limits.timeout_ms = SMARTCTL_TIMEOUT_MS;
	env->limits.max_out_bytes = SMARTCTL_MAX_OUT;
	env->limits.max_err_bytes = SMARTCTL_MAX_ERR;
}
