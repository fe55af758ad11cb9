/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading an experiment file: the only I/O of the experiment library. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "tools/run/experiment.h"

int dut_experiment_load(const char *path, struct dut_experiment **ret, struct dut_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		dut_error_set(err, "%s: cannot read the experiment: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > DUT_EXP_MAX_BYTES) {
		dut_error_set(err, "%s: expected a regular file of at most 1 MiB (an experiment), found %s", path,
			      S_ISREG(st.st_mode) ? "a larger file" : "no regular file");
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

			dut_error_set(err, "%s: cannot read the experiment: %s", path, strerror(e));
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return dut_experiment_parse(buf, got, path, ret, err);
}
