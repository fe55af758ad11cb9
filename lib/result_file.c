/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result documents to and from files.  Writes are atomic: a temporary file
 * in the same directory, fsync, rename, fsync of the directory, so a
 * reader never sees half a document and a crash leaves the old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/result.h"

/* Largest document we read: a day of per-second series is a few MiB. */
#define MAX_DOC_BYTES (256u << 20)

int dut_result_write_file(const struct dut_result *r, const char *path)
{
	_cleanup_free_ char *text = NULL;
	int ret;

	if (!r || !path || !*path)
		return -EINVAL;
	ret = dut_result_to_string(r, &text);
	if (ret < 0)
		return ret;
	if (strcmp(path, "-") == 0) {
		size_t len = strlen(text);

		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
			return -(errno ? errno : EIO);
		return 0;
	}
	return dut_write_file_atomic(path, text, strlen(text), 0666);
}

int dut_result_read_file(const char *path, struct dut_result **ret, struct dut_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct dut_error perr = { { 0 } };
	size_t len = 0;
	int r;

	if (!path || !ret) {
		dut_error_set(err, "no file name");
		return -EINVAL;
	}
	fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		dut_error_set(err, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	r = dut_read_fd_alloc(fd, MAX_DOC_BYTES, 0, &buf, &len);
	if (r == -EFBIG) {
		dut_error_set(err, "%s: larger than %u MiB, not a result document", path, MAX_DOC_BYTES >> 20);
		return r;
	}
	if (r < 0) {
		dut_error_set(err, "%s: cannot read: %s", path, strerror(-r));
		return r;
	}
	r = dut_result_parse(buf, len, ret, &perr);
	if (r < 0)
		dut_error_set(err, "%s: %s", path, perr.msg);
	return r;
}
