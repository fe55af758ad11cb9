/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small whole-file reads: see file_io.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"

int dut_read_small_file(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len)
{
	/* O_NONBLOCK: a FIFO must not hang the open; no effect on regular files */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0, size;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes)
		return -EFBIG;
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*ret_buf = TAKE_PTR(buf);
	*ret_len = got;
	return 0;
}
