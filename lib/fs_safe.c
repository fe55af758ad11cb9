/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Root-side file operations that never follow what others can write: see fs_safe.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/fs_safe.h"

/* Deeper trees than this are not removed (a crafted tree must not exhaust fds or stack). */
#define REMOVE_MAX_DEPTH 64

/* The component walk for kernels without openat2: O_NOFOLLOW on every name. */
static int open_walk(const char *path, int flags)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_close_ int dirfd = -1;
	char *p, *next;

	if (!copy)
		return -ENOMEM;
	dirfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	p = copy;
	for (;;) {
		while (*p == '/')
			p++;
		next = strchr(p, '/');
		if (next)
			*next++ = '\0';
		while (next && *next == '/')
			next++;
		if (!next || !*next)
			break;          /* p is the last component */
		int fd = openat(dirfd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0) {
			struct stat st;

			if (errno == ENOTDIR && fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				return -ELOOP;
			return -errno;
		}
		close(dirfd);
		dirfd = fd;
		p = next;
	}
	int fd = openat(dirfd, *p ? p : ".", flags | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int dut_open_nofollow(const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (flags & O_CREAT)
		return -EINVAL;
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS)
		return -errno;
	return open_walk(path, flags);
}

int dut_open_regular(const char *path, uid_t owner, struct stat *ret_st)
{
	_cleanup_close_ int fd = dut_open_nofollow(path, O_RDONLY | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (owner != DUT_ANY_OWNER && st.st_uid != owner)
		return -EPERM;
	if (ret_st)
		*ret_st = st;
	return TAKE_FD(fd);
}

/* Read to the end, not st_size: synthetic files such as dutfs's stats.json report 0. */
int dut_read_file_owned(const char *path, uid_t owner, size_t max_bytes, char **ret_buf,
			size_t *ret_len)
{
	_cleanup_close_ int fd = dut_open_regular(path, owner, NULL);

	if (fd < 0)
		return fd;
	return dut_read_fd_alloc(fd, max_bytes, 0, ret_buf, ret_len);
}

static bool one_component(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int dut_write_file_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		      uid_t uid, gid_t gid)
{
	char tmp[NAME_MAX + 1];
	_cleanup_close_ int fd = -1;
	int r, tries;

	if (!one_component(name) || strlen(name) > NAME_MAX - 9)
		return -EINVAL;
	for (tries = 0; tries < 16 && fd < 0; tries++) {
		uint32_t rnd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		snprintf(tmp, sizeof(tmp), ".%s.%08x", name, rnd);
		/* O_EXCL with O_CREAT never follows a link planted at tmp */
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	if ((r = dut_write_all(fd, buf, len)) < 0)
		goto out_unlink;
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid) < 0) {
		r = -errno;
		goto out_unlink;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
		r = -errno;
		goto out_unlink;
	}
	/* rename replaces whatever name is (a planted link included) without following it */
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		r = -errno;
		goto out_unlink;
	}
	return 0;
out_unlink:
	unlinkat(dirfd, tmp, 0);
	return r;
}

/* Split path into its directory (opened without links) and last component. */
static int open_parent(const char *path, char *ret_name, size_t name_len)
{
	_cleanup_free_ char *copy = strdup(path);
	char *slash;
	size_t n;

	if (!copy)
		return -ENOMEM;
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	slash = strrchr(copy, '/');
	if (!slash) {
		if (snprintf(ret_name, name_len, "%s", copy) >= (int)name_len)
			return -ENAMETOOLONG;
		return dut_open_nofollow(".", O_PATH | O_DIRECTORY);
	}
	if (snprintf(ret_name, name_len, "%s", slash + 1) >= (int)name_len)
		return -ENAMETOOLONG;
	if (slash == copy)
		return dut_open_nofollow("/", O_PATH | O_DIRECTORY);
	*slash = '\0';
	return dut_open_nofollow(copy, O_PATH | O_DIRECTORY);
}

int dut_write_file_nofollow(const char *path, const void *buf, size_t len, mode_t mode,
			    uid_t uid, gid_t gid)
{
	char name[NAME_MAX + 1];
	_cleanup_close_ int dirfd = open_parent(path, name, sizeof(name));

	if (dirfd < 0)
		return dirfd;
	return dut_write_file_at(dirfd, name, buf, len, mode, uid, gid);
}

int dut_copy_file_safe(const char *src, uid_t owner, const char *dst, mode_t mode,
		       size_t max_bytes)
{
	_cleanup_close_ int fd = dut_open_regular(src, owner, NULL);
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (fd < 0)
		return fd;
	if ((r = dut_read_fd_alloc(fd, max_bytes, DUT_READ_CUT, &buf, &len)) < 0)
		return r;
	return dut_write_file_nofollow(dst, buf, len, mode, (uid_t)-1, (gid_t)-1);
}

static int remove_at(int dirfd, const char *name, dev_t parent_dev, int depth);

/* Remove the entries of the directory open at fd; the first error is kept. */
static int empty_dir(int fd, dev_t dev, int depth)
{
	int dfd = dup(fd);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;
	int r = 0, q;

	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((q = remove_at(fd, e->d_name, dev, depth + 1)) < 0 && r == 0)
			r = q;
	}
	if (errno && r == 0)
		r = -errno;
	return r;
}

static int remove_at(int dirfd, const char *name, dev_t parent_dev, int depth)
{
	_cleanup_close_ int fd = -1;
	struct stat st, st2;
	int r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (st.st_dev != parent_dev)
		return -EBUSY;          /* a mount point: its contents are not ours to remove */
	if (depth >= REMOVE_MAX_DEPTH)
		return -ELOOP;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st2) < 0)
		return -errno;
	if (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)
		return -EAGAIN;         /* replaced between the stat and the open */
	r = empty_dir(fd, st.st_dev, depth);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

int dut_remove_tree_at(int dirfd, const char *name)
{
	struct stat pst;

	if (!one_component(name))
		return -EINVAL;
	if (fstat(dirfd, &pst) < 0)
		return -errno;
	return remove_at(dirfd, name, pst.st_dev, 0);
}

int dut_remove_tree(const char *path)
{
	char name[NAME_MAX + 1];
	_cleanup_close_ int dirfd = open_parent(path, name, sizeof(name));

	if (dirfd == -ENOENT)
		return 0;
	if (dirfd < 0)
		return dirfd;
	return dut_remove_tree_at(dirfd, name);
}

static void set_bad(char *bad, size_t len, const char *path, size_t upto)
{
	if (bad && len)
		snprintf(bad, len, "%.*s", (int)(upto ? upto : 1), path);
}

int dut_ensure_private_dir(const char *path, mode_t mode, char *ret_bad, size_t bad_len)
{
	_cleanup_close_ int fd = -1;
	uid_t me = geteuid();
	const char *p = path;
	bool created = false;

	if (path[0] != '/')
		return -EINVAL;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (*p) {
		char comp[NAME_MAX + 1];
		size_t n;
		struct stat st;
		int next;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		size_t end = (size_t)(p - path);   /* the path up to this component, for ret_bad */

		while (*p == '/')
			p++;
		bool last = !*p;

		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			set_bad(ret_bad, bad_len, path, end);
			return -EINVAL;
		}
		if (mkdirat(fd, comp, last ? (mode & 0777) : 0755) == 0)
			created = last;
		else if (errno != EEXIST) {
			set_bad(ret_bad, bad_len, path, end);
			return -errno;
		}
		next = openat(fd, comp, (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;

			set_bad(ret_bad, bad_len, path, end);
			if ((e == ELOOP || e == ENOTDIR) && fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0)
				return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
			return -e;
		}
		close(fd);
		fd = next;
		if (fstat(fd, &st) < 0)
			return -errno;
		if (last && created && fchmod(fd, mode & 07777) < 0)
			return -errno;
		if (last && created && fstat(fd, &st) < 0)
			return -errno;
		set_bad(ret_bad, bad_len, path, end);
		if (last) {
			if (st.st_uid != me)
				return -EPERM;
			if (st.st_mode & (S_IWGRP | S_IWOTH))
				return -EACCES;
		} else {
			if (st.st_uid != 0 && st.st_uid != me)
				return -EPERM;
			if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
				return -EACCES;
		}
	}
	if (ret_bad && bad_len)
		ret_bad[0] = '\0';
	return 0;
}

const char *dut_fs_safe_strerror(int neg_errno)
{
	switch (-neg_errno) {
	case ELOOP:
		return "it is, or lies under, a symbolic link (refused: root does not follow links "
		       "in places other users can write)";
	case EINVAL:
		return "it is not a regular file or plain directory name";
	case ENOTDIR:
		return "it is not a directory";
	case EPERM:
		return "it is owned by another user";
	case EACCES:
		return "it is writable by group or others";
	default:
		return strerror(-neg_errno);
	}
}

int dut_path_trusted(const char *path, char *ret_bad, size_t bad_len, const char **ret_why)
{
	char real[PATH_MAX], part[PATH_MAX];
	uid_t me = geteuid();
	struct stat st;

	*ret_why = "cannot be examined";
	set_bad(ret_bad, bad_len, path, strlen(path));
	if (!realpath(path, real))
		return -errno;
	for (size_t n = 1;; n++) {
		bool last = real[n] == '\0';

		if (real[n] != '/' && !last)
			continue;
		set_bad(part, sizeof(part), real, n);
		set_bad(ret_bad, bad_len, real, n);
		if (lstat(part, &st) < 0)
			return -errno;
		if (st.st_uid != 0 && st.st_uid != me) {
			*ret_why = "owned by another user";
			return -EPERM;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX))) {
			*ret_why = "writable by other users";
			return -EPERM;
		}
		if (last)
			return 0;
	}
}
