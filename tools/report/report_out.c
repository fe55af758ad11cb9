/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output files of the dutlab commands: replaced only when complete (report_out.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/result.h"
#include "tools/report/report_out.h"

static bool is_stdout(const char *path)
{
	static const char *const names[] = { "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1" };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(names); i++)
		if (strcmp(path, names[i]) == 0)
			return true;
	return false;
}

static void out_file_clear(struct out_file *o)
{
	free(o->path);
	free(o->tmp);
	*o = (struct out_file){ 0 };
}

/* The target exists and is not a regular file (or is a link): open it as it is, without creating. */
static int open_in_place(const char *path, bool is_link)
{
	struct stat st;
	int fd;

	/* a link is followed by open(2), with the kernel's protected_symlinks rules; through a link
	 * to a regular file the old content must go (O_TRUNC), a device or FIFO ignores it */
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (is_link ? O_TRUNC : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	if (!is_link && (fstat(fd, &st) < 0 || S_ISREG(st.st_mode))) {
		/* replaced by a regular file since lstat: do not write over its start */
		close(fd);
		return -EAGAIN;
	}
	return fd;
}

/* A new temporary file next to path, with mode (and, best effort, the owner of the file it replaces). */
static int open_temp(const char *path, const struct stat *old, char **ret_tmp)
{
	_cleanup_free_ char *tmp = NULL;
	int fd;

	for (unsigned attempt = 0;; attempt++) {
		free(tmp);
		if (asprintf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(), attempt) < 0) {
			tmp = NULL;
			return -ENOMEM;
		}
		/* O_EXCL: never an existing file or a link planted under this name */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, old ? 0600 : 0666);
		if (fd >= 0)
			break;
		if (errno != EEXIST || attempt >= 100)
			return -errno;
	}
	if (old) {
		/* best effort: root keeps the owner of the file it replaces; another user cannot
		 * give a file away, and theirs is then a new file like any other */
		if (old->st_uid != geteuid() || old->st_gid != getegid())
			(void)!fchown(fd, old->st_uid, old->st_gid);
		if (fchmod(fd, old->st_mode & 0777) < 0) {
			int r = -errno;

			close(fd);
			unlink(tmp);
			return r;
		}
	}
	*ret_tmp = TAKE_PTR(tmp);
	return fd;
}

int out_file_open(const char *path, struct out_file *ret)
{
	struct out_file o = { 0 };
	struct stat st;
	bool exists = true;
	int fd;

	if (!path || !*path)
		return -EINVAL;
	if (!(o.path = strdup(path)))
		return -ENOMEM;
	if (is_stdout(path)) {
		o.f = stdout;
		*ret = o;
		return 0;
	}
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			fd = -errno;
			goto out_clear;
		}
		exists = false;
	}
	if (exists && S_ISDIR(st.st_mode))
		fd = -EISDIR;
	else if (exists && !S_ISREG(st.st_mode))
		fd = open_in_place(path, S_ISLNK(st.st_mode));
	else
		fd = open_temp(path, exists ? &st : NULL, &o.tmp);
	if (fd < 0)
		goto out_clear;
	if (!(o.f = fdopen(fd, "w"))) {
		int r = -errno;

		close(fd);
		if (o.tmp)
			unlink(o.tmp);
		fd = r;
		goto out_clear;
	}
	*ret = o;
	return 0;

out_clear:
	out_file_clear(&o);
	return fd;
}

int out_file_commit(struct out_file *o)
{
	int r = 0;

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		r = -(errno ? errno : EIO);
	if (o->f == stdout) {
		o->f = NULL;
		out_file_clear(o);
		return r;
	}
	if (r == 0 && o->tmp && fsync(fileno(o->f)) < 0)
		r = -errno;
	if (fclose(o->f) != 0 && r == 0)
		r = -errno;
	o->f = NULL;
	if (r == 0 && o->tmp && rename(o->tmp, o->path) < 0)
		r = -errno;
	if (r < 0) {
		out_file_abort(o);
		return r;
	}
	if (o->tmp)
		r = dut_fsync_parent_dir(o->path);
	out_file_clear(o);
	return r;
}

void out_file_abort(struct out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->f == stdout)
		fflush(stdout);
	if (o->tmp)
		unlink(o->tmp);
	out_file_clear(o);
}

int out_file_write_text(const char *path, const char *text, size_t len)
{
	struct out_file o;
	int r = out_file_open(path, &o);

	if (r < 0)
		return r;
	if (fwrite(text, 1, len, o.f) != len) {
		r = -(errno ? errno : EIO);
		out_file_abort(&o);
		return r;
	}
	return out_file_commit(&o);
}

int out_file_write_result(const struct dut_result *r, const char *path)
{
	_cleanup_free_ char *text = NULL;
	int ret = dut_result_to_string(r, &text);

	return ret < 0 ? ret : out_file_write_text(path, text, strlen(text));
}
