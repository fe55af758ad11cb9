/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loop devices for image targets: find the device an image is attached to,
 * attach (autoclear, so a device never outlives its last user), detach.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "tools/run/stage/stage_pure.h"
#include "tools/run/stage/stage_sys.h"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The backing file of /sys/block/<name>, or -ENOENT when it is not attached. */
static int backing_file(const char *name, char *out, size_t len, bool *ret_deleted)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/block/%s/loop/backing_file", stage_sysfs_root(), name);
	r = stage_read_text(path, &text);
	if (r < 0)
		return r;
	stage_backing_file_path(text, out, len, ret_deleted);
	return 0;
}

int stage_loop_find(const struct stat *want, const char *path, char *dev, size_t devlen)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct stat st;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/block", stage_sysfs_root());
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char bf[PATH_MAX];
		bool deleted, same;

		if (strncmp(de->d_name, "loop", 4) != 0 || backing_file(de->d_name, bf, sizeof(bf), &deleted) < 0)
			continue;
		/* the same file, even under another name (a hard link, a bind mount) */
		if (!deleted && stat(bf, &st) == 0)
			same = st.st_dev == want->st_dev && st.st_ino == want->st_ino;
		else
			same = !deleted && strcmp(bf, path) == 0;
		if (same) {
			snprintf(dev, devlen, "/dev/%s", de->d_name);
			return 1;
		}
	}
	return 0;
}

static void fill_info(struct loop_info64 *info, uint64_t size_bytes, const char *name, uint32_t flags)
{
	memset(info, 0, sizeof(*info));
	info->lo_sizelimit = size_bytes;
	info->lo_flags = flags;
	snprintf((char *)info->lo_file_name, sizeof(info->lo_file_name), "%s", name);
}

/* Kernels before 5.8: no LOOP_CONFIGURE. */
static int attach_legacy(int loop_fd, int image_fd, uint64_t size_bytes, const char *name)
{
	struct loop_info64 info;

	if (ioctl(loop_fd, LOOP_SET_FD, image_fd) < 0)
		return -errno;
	fill_info(&info, size_bytes, name, LO_FLAGS_AUTOCLEAR);
	if (ioctl(loop_fd, LOOP_SET_STATUS64, &info) < 0) {
		int r = -errno;

		ioctl(loop_fd, LOOP_CLR_FD, 0);
		return r;
	}
	ioctl(loop_fd, LOOP_SET_DIRECT_IO, 1UL);   /* best effort, as with LOOP_CONFIGURE */
	return 0;
}

static int configure(int loop_fd, int image_fd, uint64_t size_bytes, const char *name)
{
	struct loop_config cfg = { .fd = (uint32_t)image_fd };

	/* Direct I/O keeps the image's data out of the host page cache: what the
	 * filesystem under test flushes reaches the host filesystem at once. */
	fill_info(&cfg.info, size_bytes, name, LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO);
	if (ioctl(loop_fd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno == EINVAL) {  /* the backing filesystem cannot do O_DIRECT */
		fill_info(&cfg.info, size_bytes, name, LO_FLAGS_AUTOCLEAR);
		if (ioctl(loop_fd, LOOP_CONFIGURE, &cfg) == 0)
			return 0;
	}
	if (errno == ENOTTY)
		return attach_legacy(loop_fd, image_fd, size_bytes, name);
	return -errno;
}

int stage_loop_attach(int image_fd, uint64_t size_bytes, const char *name, char *dev, size_t devlen,
		      int *ret_fd, char *msg, size_t msglen)
{
	_cleanup_close_ int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int r = -EBUSY;

	if (ctl < 0) {
		r = -errno;
		snprintf(msg, msglen, "cannot open /dev/loop-control: %s (loop devices need root and a kernel "
			 "with CONFIG_BLK_DEV_LOOP)", strerror(-r));
		return r;
	}
	/* Another program may take the free device between GET_FREE and our
	 * configure (EBUSY): ask again, a bounded number of times. */
	for (int tries = 0; tries < 8 && r == -EBUSY; tries++) {
		char path[32];
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		_cleanup_close_ int fd = -1;

		if (n < 0) {
			r = -errno;
			snprintf(msg, msglen, "no free loop device (LOOP_CTL_GET_FREE: %s)", strerror(-r));
			return r;
		}
		snprintf(path, sizeof(path), "/dev/loop%d", n);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			snprintf(msg, msglen, "cannot open %s: %s", path, strerror(-r));
			return r;
		}
		r = configure(fd, image_fd, size_bytes, name);
		if (r == 0) {
			snprintf(dev, devlen, "%s", path);
			*ret_fd = TAKE_FD(fd);
			return 0;
		}
	}
	snprintf(msg, msglen, "cannot attach a loop device to %s: %s", name, strerror(-r));
	return r;
}

/* Poll the sysfs attachment of dev for up to ms milliseconds; true once detached. */
static bool wait_detached(const char *name, unsigned ms)
{
	for (unsigned waited = 0;; waited += 50) {
		char bf[PATH_MAX];

		if (backing_file(name, bf, sizeof(bf), NULL) < 0)
			return true;
		if (waited >= ms)
			return false;
		sleep_ms(50);
	}
}

int stage_loop_detach(int loop_fd, const char *dev)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;

	if (loop_fd >= 0)
		close(loop_fd);
	/* autoclear runs at the last close; udev's probe may hold it a moment longer */
	if (wait_detached(name, 2000))
		return 0;
	{
		_cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			ioctl(fd, LOOP_CLR_FD, 0);
	}
	return wait_detached(name, 1000) ? 0 : -EBUSY;
}
