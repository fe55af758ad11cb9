/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the rules file: the I/O half of shape_rules_load(). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse/shape/rules.h"
#include "lib/cleanup.h"

#define RULES_MAX_BYTES (1u << 20)

int shape_rules_load(const char *path, struct shape_rules **ret, struct dut_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		dut_error_set(err, "%s: cannot read the shaping rules: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > RULES_MAX_BYTES) {
		dut_error_set(err, "%s: expected a regular file of at most 1 MiB of shaping rules", path);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			dut_error_set(err, "%s: cannot read the shaping rules: %s", path, strerror(e));
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return shape_rules_parse(buf, got, path, ret, err);
}
