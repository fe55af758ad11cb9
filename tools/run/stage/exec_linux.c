/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running mkfs for target staging: fork + exec (never a shell), output
 * captured for the error message; and small /proc, /sys reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
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

/* In the child: never returns. */
static void run_child(char *const argv[], int out_fd)
{
	int null_fd = open("/dev/null", O_RDONLY);

	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(out_fd, STDERR_FILENO) < 0)
		_exit(127);
	/* a caller that ignores SIGPIPE or blocks signals must not pass that on */
	signal(SIGPIPE, SIG_DFL);
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	execv(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int stage_run(char *const argv[], char *out, size_t outlen, int *ret_status)
{
	int pipefd[2];
	size_t used = 0;
	pid_t pid;
	int status;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return r;
	}
	if (pid == 0)
		run_child(argv, pipefd[1]);
	close(pipefd[1]);
	for (;;) {
		char chunk[4096];
		ssize_t n = read(pipefd[0], chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < outlen) {
			size_t take = (size_t)n < outlen - 1 - used ? (size_t)n : outlen - 1 - used;

			memcpy(out + used, chunk, take);
			used += take;
		}
	}
	if (outlen)
		out[used] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	*ret_status = status;
	return 0;
}
