/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running mkfs for target staging (lib/spawn.h: never a shell, output
 * captured for the error message); and small /proc, /sys reads.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/spawn.h"
#include "lib/sysfs_root.h"
#include "tools/run/stage/stage_sys.h"

const char *stage_sysfs_root(void)
{
	return dut_sysfs_root();
}

int stage_read_text(const char *path, char **ret)
{
	return dut_read_text_alloc(path, 16u << 20, ret, NULL);
}

static bool try_dir(const char *dir, size_t dlen, const char *name, char *out, size_t len)
{
	if (dlen == 0)
		return false;
	if (snprintf(out, len, "%.*s/%s", (int)dlen, dir, name) >= (int)len)
		return false;
	return access(out, X_OK) == 0;
}

int stage_find_program(const char *name, char *out, size_t len)
{
	static const char *const extra[] = { "/usr/sbin", "/sbin" };
	/* test seam: search only this list (to see what a missing mkfs looks like) */
	const char *only = getenv("DUT_STAGE_PROGRAM_PATH");
	const char *path = only ? only : getenv("PATH");

	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, ":");

		if (try_dir(p, n, name, out, len))
			return 0;
		p += n;
		if (*p == ':')
			p++;
	}
	for (size_t i = 0; !only && i < DUT_ARRAY_SIZE(extra); i++)
		if (try_dir(extra[i], strlen(extra[i]), name, out, len))
			return 0;
	return -ENOENT;
}

int stage_run(char *const argv[], char *out, size_t outlen, int *ret_status)
{
	struct dut_capture cap = { .buf = out, .cap = outlen };
	/* a caller that ignores SIGPIPE or blocks signals must not pass that on */
	struct dut_spawn_opts o = {
		.out = { .how = DUT_SPAWN_CAPTURE },
		.err = { .how = DUT_SPAWN_STDOUT },
		.capture = &cap,
		.signals = DUT_SPAWN_SIG_UNBLOCK | DUT_SPAWN_SIG_PIPE,
	};
	struct dut_child c;
	int r;

	if (outlen)
		out[0] = '\0';
	if ((r = dut_spawn(argv, &o, &c)) < 0)
		return r;
	if ((r = dut_child_wait(&c, 0, 0)) < 0)
		return r;
	/* a program that cannot be run exits 127 with the reason as its output, as a shell says it */
	if (c.fail == DUT_SPAWN_FAIL_EXEC)
		snprintf(out, outlen, "cannot run %s: %s\n", argv[0], strerror(c.fail_errno));
	*ret_status = c.status;
	return 0;
}
