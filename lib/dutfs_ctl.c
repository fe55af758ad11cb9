/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutfs control-file client: see dutfs_ctl.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/dutfs_ctl.h"
#include "lib/fs_safe.h"

int dut_ctl_open(const char *path)
{
	struct stat st;
	int fd, r;

	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return -ENOENT;
	if ((fd = dut_open_nofollow(path, O_RDWR | O_NONBLOCK)) < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return S_ISREG(st.st_mode) ? -EPERM : -EINVAL;
	}
	return fd;
}

int dut_ctl_find(const char *start, char *ret, size_t len,
		 void (*refused)(const char *path, int err, void *ctx), void *ctx)
{
	char dir[PATH_MAX];

	if (!realpath(start, dir))
		return -errno;
	for (;;) {
		char *slash;
		int fd;

		if (snprintf(ret, len, "%s/" DUT_CTL_NAME, strcmp(dir, "/") ? dir : "") >= (int)len)
			return -ENAMETOOLONG;
		fd = dut_ctl_open(ret);
		if (fd >= 0)
			return fd;
		if (fd != -ENOENT && refused)
			refused(ret, fd, ctx);
		slash = strrchr(dir, '/');
		if (!slash || strcmp(dir, "/") == 0)
			return -ENOENT;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int dut_ctl_command(int fd, const char *cmd, char *status, size_t status_len)
{
	char line[256], answer[256];
	ssize_t n;
	int len = snprintf(line, sizeof(line), "%s\n", cmd);

	if (status && status_len)
		status[0] = '\0';
	if (len < 0 || len >= (int)sizeof(line))
		return -ENAMETOOLONG;
	/* one command per write(2), as dutfs reads them */
	while ((n = write(fd, line, (size_t)len)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	if (n != len)
		return -EIO;
	n = pread(fd, answer, sizeof(answer) - 1, 0);
	if (n <= 0)
		return 0;
	answer[n] = '\0';
	answer[strcspn(answer, "\n")] = '\0';
	if (status && status_len)
		snprintf(status, status_len, "%s", answer);
	return strncmp(answer, "error", 5) == 0 ? -EINVAL : 0;
}
