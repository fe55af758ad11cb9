/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive behind a USB bridge: run smartctl once per device type of the
 * bridge's plan (usb_bridge.c) until one answer comes from the drive itself.
 * Programs run only through env->ops, so tests substitute them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/inner.h"

/* First line of stderr, for a message when stdout said nothing useful. */
static void first_line(const char *s, char *buf, size_t len)
{
	size_t n = strcspn(s, "\n");

	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

static const char *permission_hint(const char *msg)
{
	return strstr(msg, "Permission denied") || strstr(msg, "Operation not permitted") ?
	       " (SCSI passthrough needs root with CAP_SYS_RAWIO)" : "";
}

/* One smartctl run: 0 (ran; a->ok says whether it reached the drive), or -ENOENT/-errno. */
static int attempt(const struct dp_inner_env *env, const char *dtype, const char *device,
		   struct dp_smartctl_attempt *a, struct dp_inner_drive *drive)
{
	const char *argv[DP_SMARTCTL_ARGV_MAX];
	struct dp_exec_result res;
	char line[256] = "";
	int r;

	memset(a, 0, sizeof(*a));
	dp_strlcpy(a->dtype, dtype, sizeof(a->dtype));
	a->exit_status = -1;
	dp_smartctl_argv(env->smartctl, dtype, device, argv);
	r = env->ops->run(env->ctx, argv, &env->limits, &res);
	if (r < 0) {
		a->err = r;
		snprintf(a->message, sizeof(a->message), "could not run %s: %s", env->smartctl,
			 strerror(-r));
		return r;
	}
	if (res.err)
		first_line(res.err, line, sizeof(line));
	switch (res.outcome) {
	case DP_EXEC_TIMED_OUT:
		a->err = -ETIME;
		snprintf(a->message, sizeof(a->message), "no answer within %u s (killed)%s%s",
			 env->limits.timeout_ms / 1000, line[0] ? "; stderr: " : "", line);
		goto out;
	case DP_EXEC_OUTPUT_TOO_BIG:
		a->err = -EFBIG;
		snprintf(a->message, sizeof(a->message), "more than %zu bytes of output (killed)",
			 env->limits.max_out_bytes);
		goto out;
	case DP_EXEC_SIGNALLED:
		a->err = -EINTR;
		snprintf(a->message, sizeof(a->message), "killed by signal %d%s%s", res.status,
			 line[0] ? "; stderr: " : "", line);
		goto out;
	case DP_EXEC_EXITED:
		break;
	}
	a->exit_status = res.status;
	r = dp_smartctl_decode(res.out, res.out_len, drive);
	if (r < 0) {
		a->err = r;
		snprintf(a->message, sizeof(a->message), "exit status %d, output is %s%s%s",
			 res.status, r == -EBADMSG ? "not complete JSON" : "not smartctl's JSON",
			 line[0] ? "; stderr: " : "", line);
		goto out;
	}
	if (drive->exit_status >= 0)
		a->exit_status = drive->exit_status;
	a->ok = dp_smartctl_reached_drive(drive, a->message, sizeof(a->message));
	if (!a->ok) {
		size_t n = strlen(a->message);
		snprintf(a->message + n, sizeof(a->message) - n, "%s", permission_hint(a->message));
	}
out:
	dp_exec_result_free(&res);
	return 0;
}

int dp_inner_query(const struct dp_inner_env *env, const struct dp_usb_bridge_model *m,
		   const char *device, struct dp_inner_probe *ret)
{
	_cleanup_free_ struct dp_inner_drive *drive = calloc(1, sizeof(*drive));
	const char *plan[DP_INNER_MAX_ATTEMPTS];
	size_t nplan = dp_usb_bridge_plan(m, plan, DP_INNER_MAX_ATTEMPTS);
	size_t n = 0;

	if (!drive)
		return -ENOMEM;
	memset(ret, 0, sizeof(*ret));
	ret->used = -1;
	dp_strlcpy(ret->smartctl, env->smartctl, sizeof(ret->smartctl));
	dp_strlcpy(ret->device, device, sizeof(ret->device));
	for (size_t i = 0; i < nplan; i++) {
		struct dp_smartctl_attempt *a = &ret->attempts[ret->nattempts++];
		int r = attempt(env, plan[i], device, a, drive);

		if (r == -ENOENT) {
			ret->state = DP_INNER_NO_SMARTCTL;
			ret->nattempts = 0;
			snprintf(ret->reason, sizeof(ret->reason),
				 "smartctl is not installed (no %s%s): apt-get install smartmontools; "
				 "it reaches the drive behind ASMedia, JMicron and Realtek USB-NVMe "
				 "bridges and SATA drives behind USB (SAT)", env->smartctl,
				 strchr(env->smartctl, '/') ? "" : " on PATH");
			return 0;
		}
		if (r < 0) {
			/* cannot be started (EACCES, ENOMEM): every other type would fail alike */
			ret->state = DP_INNER_FAILED;
			snprintf(ret->reason, sizeof(ret->reason), "%s", a->message);
			return 0;
		}
		if (a->ok) {
			ret->state = DP_INNER_OK;
			ret->used = (int)(ret->nattempts - 1);
			memcpy(&ret->drive, drive, sizeof(*drive));
			return 0;
		}
		memset(drive, 0, sizeof(*drive));
	}
	ret->state = DP_INNER_FAILED;
	for (unsigned i = 0; i < ret->nattempts; i++) {
		int w = snprintf(ret->reason + n, sizeof(ret->reason) - n, "%s-d %s", i ? ", " : "tried ",
				 ret->attempts[i].dtype[0] ? ret->attempts[i].dtype : "auto");
		if (w < 0 || (size_t)w >= sizeof(ret->reason) - n)
			break;
		n += (size_t)w;
	}
	if (n < sizeof(ret->reason))
		snprintf(ret->reason + n, sizeof(ret->reason) - n, ": %s",
			 ret->nattempts == 1 ? "failed" : "each failed");
	return 0;
}
