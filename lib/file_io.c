/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small whole-file reads and atomic writes: see file_io.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"

int dut_read_small_file(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len)
{
	/* O_NONBLOCK: a FIFO must not hang the open; no effect on regular files */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes)
		return -EFBIG;
	return dut_read_fd_alloc(fd, max_bytes, 0, ret_buf, ret_len);
}

int dut_read_fd_alloc(int fd, size_t max_bytes, unsigned flags, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	/* max_bytes + 1 (the byte that tells "more") and the doubling must not wrap */
	if (max_bytes > SIZE_MAX / 4)
		max_bytes = SIZE_MAX / 4;
	for (;;) {
		size_t room;
		ssize_t n;

		if (len == cap) {
			size_t want = cap ? cap * 2 : 16384;
			char *nb;

			if (cap > max_bytes)
				break;          /* one byte past max_bytes was read */
			if (want > max_bytes + 1)
				want = max_bytes + 1;
			if (!(nb = realloc(buf, want + 1)))
				return -ENOMEM;
			buf = nb;
			cap = want;
		}
		room = cap - len;
		if ((n = dut_read_full(fd, buf + len, room)) < 0)
			return (int)n;
		len += (size_t)n;
		if ((size_t)n < room)
			break;                  /* end of file */
	}
	if (len > max_bytes) {
		if (!(flags & DUT_READ_CUT))
			return -EFBIG;
		len = max_bytes;
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

ssize_t dut_read_tail(int fd, char *buf, size_t len)
{
	struct stat st;
	off_t from;
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;     /* a FIFO or device has no end to read back from */
	from = st.st_size > (off_t)(len - 1) ? st.st_size - (off_t)(len - 1) : 0;
	do
		n = pread(fd, buf, len - 1, from);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

ssize_t dut_read_full(int fd, void *data, size_t len)
{
	char *buf = data;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int dut_write_all(int fd, const void *data, size_t len)
{
	const char *buf = data;

	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int dut_fsync_parent_dir(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_close_ int fd = -1;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fsync(fd) < 0 ? -errno : 0;
}

/* A device, FIFO or socket (or a link to one) is written in place, never replaced. */
static int write_in_place(const char *path, const void *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return dut_write_all(fd, buf, len);
}

int dut_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!path || !*path || (!buf && len))
		return -EINVAL;
	/* `--json /dev/null` as root must not replace /dev/null with a regular file */
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return write_in_place(path, buf, len);
	}
	for (unsigned attempt = 0;; attempt++) {
		free(tmp);
		if (asprintf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(), attempt) < 0) {
			tmp = NULL;
			return -ENOMEM;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0)
			break;
		if (errno != EEXIST || attempt >= 100)
			return -errno;
	}
	r = dut_write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && close(TAKE_FD(fd)) < 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return dut_fsync_parent_dir(path);
}

int dut_read_text_alloc(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return dut_read_fd_alloc(fd, max_bytes, 0, ret_buf, ret_len);
}

int dut_read_text(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	ssize_t got;

	if (len == 0)
		return -EINVAL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if ((got = dut_read_full(fd, buf, len - 1)) < 0)
		return (int)got;
	buf[got] = '\0';
	if ((size_t)got == len - 1) {
		char more;

		if (dut_read_full(fd, &more, 1) > 0)
			return -EFBIG;
	}
	return 0;
}
