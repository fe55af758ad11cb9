/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real struct dp_exec_ops, on lib/spawn: argv[0] looked up on PATH
 * (never a shell), stdin from /dev/null, stdout and stderr each captured
 * into a buffer of its own, bounded in size and in time.  A child still
 * running at the deadline, or whose stdout passes the bound, is killed
 * (SIGKILL) and reaped; one stuck in the kernel (a USB command that does
 * not return) gets a further 2 s to die before we stop waiting for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/cleanup.h"
#include "lib/spawn.h"
#include "probe/identify/inner.h"

/* smartctl -j -a prints 5-60 kB; a USB command can take seconds */
#define SMARTCTL_TIMEOUT_MS 20000
#define SMARTCTL_MAX_OUT (1u << 20)
#define SMARTCTL_MAX_ERR (16u << 10)
/* after the kill: how long a child stuck in the kernel is waited for */
#define KILL_GRACE_NS 2000000000ull

/* A capture of max bytes (the buffer holds max + 1 for the NUL). */
static int capture_init(struct dut_capture *c, size_t max)
{
	*c = (struct dut_capture){ .cap = max + 1 };
	if (!(c->buf = malloc(c->cap)))
		return -ENOMEM;
	c->buf[0] = '\0';
	return 0;
}

static void outcome_of(const struct dut_child *c, struct dp_exec_result *ret)
{
	if (c->overflowed)
		ret->outcome = DP_EXEC_OUTPUT_TOO_BIG;
	else if (c->timed_out || c->abandoned)
		ret->outcome = DP_EXEC_TIMED_OUT;
	else if (WIFSIGNALED(c->status)) {
		ret->outcome = DP_EXEC_SIGNALLED;
		ret->status = WTERMSIG(c->status);
	} else {
		ret->outcome = DP_EXEC_EXITED;
		ret->status = WEXITSTATUS(c->status);
	}
}

static int spawn_run(void *ctx, const char *const argv[], const struct dp_exec_limits *lim,
		     struct dp_exec_result *ret)
{
	_cleanup_free_ char *out_buf = NULL, *err_buf = NULL;
	struct dut_capture out, err;
	struct dut_spawn_opts o = {
		.search_path = true,
		.out = { .how = DUT_SPAWN_CAPTURE },
		.err = { .how = DUT_SPAWN_CAPTURE },
		.capture = &out,
		.err_capture = &err,
	};
	const struct dut_wait_limits wl = {
		.timeout_ns = (uint64_t)lim->timeout_ms * 1000000ull,
		.kill_sig = SIGKILL,
		.kill_on_overflow = true,
		.grace_ns = KILL_GRACE_NS,
	};
	struct dut_child c;
	int r;

	(void)ctx;
	r = capture_init(&out, lim->max_out_bytes);
	out_buf = out.buf;
	if (r < 0)
		return r;
	r = capture_init(&err, lim->max_err_bytes);
	err_buf = err.buf;
	if (r < 0)
		return r;
	if ((r = dut_spawn((char *const *)argv, &o, &c)) < 0)
		return r;
	if (c.fail != DUT_SPAWN_OK) {
		/* it exits at once (127): reap it, and say why (-ENOENT: no such program) */
		r = -(c.fail_errno ? c.fail_errno : EIO);
		dut_child_wait_limits(&c, &wl);
		return r;
	}
	if ((r = dut_child_wait_limits(&c, &wl)) < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	outcome_of(&c, ret);
	ret->out = TAKE_PTR(out_buf);
	ret->out_len = out.len;
	ret->err = TAKE_PTR(err_buf);
	ret->err_len = err.len;
	return 0;
}

void dp_exec_result_free(struct dp_exec_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	r->out_len = r->err_len = 0;
}

const struct dp_exec_ops dp_exec_spawn_ops = {
	.name = "spawn",
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
