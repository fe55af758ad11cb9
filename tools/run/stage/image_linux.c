/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an image target without trusting its path (stage_sys.h): every
 * directory on the way is opened with O_NOFOLLOW from the one before, so a
 * symbolic link anywhere in the path (or swapped in while we look) is
 * refused instead of followed; the image itself is opened with O_NOFOLLOW
 * from the directory that holds it, and that directory's descriptor stays
 * with the stage for the final unlinkat().  Then the marker xattr and the
 * first MiB decide whether the file is one dutlab may format
 * (stage_image_verdict(), pure).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "tools/run/stage/stage_pure.h"
#include "tools/run/stage/stage_sys.h"

void stage_image_init(struct stage_image *im)
{
	memset(im, 0, sizeof(*im));
	im->dir_fd = -1;
	im->fd = -1;
}

void stage_image_close(struct stage_image *im)
{
	if (im->fd >= 0)
		close(im->fd);
	if (im->dir_fd >= 0)
		close(im->dir_fd);
	im->fd = im->dir_fd = -1;
}

/* Why opening component comp under dir_fd failed: a symlink says so by name. */
static int component_error(int dir_fd, const char *path, const char *comp, int e, char *msg, size_t msglen)
{
	struct stat st;

	if ((e == ELOOP || e == ENOTDIR) && fstatat(dir_fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		snprintf(msg, msglen, "%s: \"%s\" on the way is a symbolic link; an image path must not go through "
			 "symbolic links (someone who can change the link could make dutlab format another file); "
			 "give the real path", path, comp);
		return -ELOOP;
	}
	if (e == ENOENT)
		snprintf(msg, msglen, "the directory of image %s does not exist (\"%s\" is missing); create it first",
			 path, comp);
	else
		snprintf(msg, msglen, "image %s: cannot open \"%s\" on the way: %s", path, comp, strerror(e));
	return -e;
}

/* The directory of path, opened component by component without following links. */
static int open_parent_nofollow(const char *path, char *name, size_t namelen, int *ret_fd, char *msg,
				size_t msglen)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_close_ int dir_fd = -1;
	char *p, *slash;

	if (!copy) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	dir_fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		int e = errno;

		snprintf(msg, msglen, "image %s: cannot open %s: %s", path, path[0] == '/' ? "/" : ".", strerror(e));
		return -e;
	}
	p = copy;
	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		if (*p && strcmp(p, ".") != 0) {
			next = openat(dir_fd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0)
				return component_error(dir_fd, path, p, errno, msg, msglen);
			close(dir_fd);
			dir_fd = next;
		}
		p = slash + 1;
	}
	if (!*p || !strcmp(p, ".") || !strcmp(p, "..") || strlen(p) >= namelen) {
		snprintf(msg, msglen, "image %s: expected the path of a file", path);
		return -EINVAL;
	}
	snprintf(name, namelen, "%s", p);
	*ret_fd = TAKE_FD(dir_fd);
	return 0;
}

/* follow_symlinks: the parent as the kernel resolves it (the user said links are fine). */
static int open_parent_follow(const char *path, char *name, size_t namelen, int *ret_fd, char *msg,
			      size_t msglen)
{
	char dir[PATH_MAX];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int fd;

	stage_dirname(path, dir, sizeof(dir));
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) >= namelen) {
		snprintf(msg, msglen, "image %s: expected the path of a file", path);
		return -EINVAL;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT || e == ENOTDIR)
			snprintf(msg, msglen, "the directory of image %s, %s, does not exist; create it first", path, dir);
		else
			snprintf(msg, msglen, "image %s: cannot open %s: %s", path, dir, strerror(e));
		return -e;
	}
	snprintf(name, namelen, "%s", base);
	*ret_fd = fd;
	return 0;
}

int stage_image_open(const char *path, enum stage_image_mode mode, bool follow_symlinks,
		     struct stage_image *ret, char *msg, size_t msglen)
{
	struct stage_image im;
	int flags = (mode == STAGE_IMAGE_CHECK ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK;
	int r;

	stage_image_init(&im);
	r = follow_symlinks ? open_parent_follow(path, im.name, sizeof(im.name), &im.dir_fd, msg, msglen)
			    : open_parent_nofollow(path, im.name, sizeof(im.name), &im.dir_fd, msg, msglen);
	if (r < 0)
		return r;
	if (!follow_symlinks)
		flags |= O_NOFOLLOW;
	/* O_NONBLOCK: a FIFO put there must not hang the run; it is refused below */
	im.fd = openat(im.dir_fd, im.name, flags);
	if (im.fd < 0 && errno == ENOENT && mode == STAGE_IMAGE_CREATE) {
		im.fd = openat(im.dir_fd, im.name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		im.created = im.fd >= 0;
	}
	if (im.fd < 0) {
		int e = errno;

		if (e == ENOENT && mode == STAGE_IMAGE_CHECK) {
			*ret = im;      /* does not exist yet: prepare creates it */
			return 0;
		}
		if (e == ELOOP)
			snprintf(msg, msglen, "image %s is a symbolic link; dutlab formats only the file named itself "
				 "(someone who can change the link could point it at another file); give the real path",
				 path);
		else
			snprintf(msg, msglen, "cannot %s image %s: %s", mode == STAGE_IMAGE_CREATE ? "create" : "open",
				 path, strerror(e));
		stage_image_close(&im);
		return -e;
	}
	if (fstat(im.fd, &im.st) < 0) {
		r = -errno;
		snprintf(msg, msglen, "image %s: %s", path, strerror(-r));
		stage_image_close(&im);
		return r;
	}
	if (!S_ISREG(im.st.st_mode)) {
		snprintf(msg, msglen, "image %s exists and is not a regular file%s", path,
			 S_ISBLK(im.st.st_mode) ? " (for a block device, use type = device)" : "");
		stage_image_close(&im);
		return -EINVAL;
	}
	if (im.st.st_nlink != 1 && !im.created) {
		snprintf(msg, msglen, "image %s has %ju names (hard links); dutlab formats only a file with one name, "
			 "so that it cannot be another file under a second name", path, (uintmax_t)im.st.st_nlink);
		stage_image_close(&im);
		return -EMLINK;
	}
	/* whoever can write the file can change the filesystem under the mounted
	 * kernel (a crafted image is a way into the kernel): only ours */
	if (!im.created && (im.st.st_uid != geteuid() || (im.st.st_mode & (S_IWGRP | S_IWOTH)))) {
		snprintf(msg, msglen, "image %s %s; whoever can write it could change the filesystem while it is "
			 "mounted; chown %u and chmod go-w it, or let dutlab create the image", path,
			 im.st.st_uid != geteuid() ? "belongs to another user" : "is writable by group or others",
			 (unsigned)geteuid());
		stage_image_close(&im);
		return -EPERM;
	}
	fcntl(im.fd, F_SETFL, fcntl(im.fd, F_GETFL) & ~O_NONBLOCK);
	*ret = im;
	return 0;
}

int stage_image_vet(const struct stage_image *im, const char *path, char *msg, size_t msglen)
{
	struct stage_image_facts f = { .path = path, .size_bytes = (uint64_t)im->st.st_size };
	_cleanup_free_ uint8_t *head = NULL;
	char val[64];
	ssize_t n;

	if (im->fd < 0 || im->created)
		return 0;
	n = fgetxattr(im->fd, STAGE_IMAGE_XATTR, val, sizeof(val) - 1);
	if (n >= 0) {
		val[n] = '\0';
		f.marked = strcmp(val, STAGE_IMAGE_XATTR_VALUE) == 0;
	}
	if (!f.marked && f.size_bytes) {
		size_t want = f.size_bytes < STAGE_IMAGE_HEAD_BYTES ? (size_t)f.size_bytes : STAGE_IMAGE_HEAD_BYTES;
		size_t got = 0;

		head = malloc(want);
		if (!head) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		while (got < want) {
			n = pread(im->fd, head + got, want - got, (off_t)got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				int e = errno;

				snprintf(msg, msglen, "image %s: cannot read it: %s", path, strerror(e));
				return -e;
			}
			if (n == 0)
				break;
			got += (size_t)n;
		}
		f.head = head;
		f.head_len = got;
	}
	return stage_image_verdict(&f, msg, msglen);
}

int stage_image_mark(const struct stage_image *im)
{
	if (fsetxattr(im->fd, STAGE_IMAGE_XATTR, STAGE_IMAGE_XATTR_VALUE, strlen(STAGE_IMAGE_XATTR_VALUE), 0) < 0)
		return -errno;
	return 0;
}

int stage_image_unlink(const struct stage_image *im)
{
	struct stat st;

	/* only the file we opened: if the name now means something else, leave it */
	if (fstatat(im->dir_fd, im->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (st.st_dev != im->st.st_dev || st.st_ino != im->st.st_ino)
		return -ESTALE;
	return unlinkat(im->dir_fd, im->name, 0) < 0 ? -errno : 0;
}
