/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stack of block devices around one device (lib/blkstack.h): sysfs walks,
 * and LOOP_GET_STATUS64 for what a loop device is backed by. */
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
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/blkstack.h"
#include "lib/cleanup.h"

dev_t dut_blkstack_decode_dev(uint64_t v)
{
	/* new_encode_dev(): minor low 8 bits, major 12 bits, minor high bits above */
	unsigned maj = (unsigned)((v & 0xfff00) >> 8);
	unsigned min = (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00));

	return makedev(maj, min);
}

/* "M:m" from a sysfs dev file. */
static int read_dev_file(const char *path, dev_t *ret)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	unsigned maj, min;

	if (!f)
		return -errno;
	if (fscanf(f, "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	*ret = makedev(maj, min);
	return 0;
}

/* The sysfs directory of dev (resolved: ".." is then its parent in the device tree). */
static int sysdir_of(const char *root, dev_t dev, char *out, size_t len)
{
	char link[PATH_MAX];
	_cleanup_free_ char *real = NULL;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", root, major(dev), minor(dev));
	real = realpath(link, NULL);
	if (!real)
		return -errno;
	if (snprintf(out, len, "%s", real) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* One bound loop device: its number and what backs it (0 for a regular file). */
struct loop_fact {
	dev_t dev;
	dev_t backing;
};

/*
 * The block device a bound loop device is backed by: lo_rdevice (the rdev
 * of the backing file, 0 for a regular file; valid even when that node was
 * deleted), else the backing_file path when it still names a block device.
 */
static dev_t loop_backing(const char *root, const char *name, dev_t dev)
{
	char path[PATH_MAX + 128], text[PATH_MAX];
	struct loop_info64 info;
	struct stat st;

	snprintf(path, sizeof(path), "/dev/%s", name);
	{
		_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev &&
		    ioctl(fd, LOOP_GET_STATUS64, &info) == 0)
			return info.lo_rdevice ? dut_blkstack_decode_dev(info.lo_rdevice) : 0;
	}
	snprintf(path, sizeof(path), "%s/block/%s/loop/backing_file", root, name);
	{
		_cleanup_fclose_ FILE *f = fopen(path, "re");

		if (!f || !fgets(text, sizeof(text), f))
			return 0;
	}
	text[strcspn(text, "\n")] = '\0';
	if (stat(text, &st) == 0 && S_ISBLK(st.st_mode))
		return st.st_rdev;
	return 0;
}

/* Every bound loop device (one with a backing_file) under root/block. */
static int list_loops(const char *root, struct loop_fact **ret, size_t *ret_n)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ struct loop_fact *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/block", root);
	d = opendir(dir);
	if (!d) {
		*ret = NULL;
		*ret_n = 0;
		return 0;       /* no /sys/block: no loop devices to know of */
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX + 300];
		dev_t dev;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/loop/backing_file", dir, de->d_name);
		if (access(path, F_OK) < 0)
			continue;       /* not bound */
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (read_dev_file(path, &dev) < 0)
			continue;
		if (n == cap) {
			struct loop_fact *nv = realloc(v, (cap + 32) * sizeof(*v));

			if (!nv)
				return -ENOMEM;
			v = nv;
			cap += 32;
		}
		v[n].dev = dev;
		v[n].backing = loop_backing(root, de->d_name, dev);
		n++;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static bool have(const struct dut_blkstack *s, dev_t dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->nodes[i].dev == dev)
			return true;
	return false;
}

static void add(const char *root, struct dut_blkstack *s, dev_t dev, int parent, enum dut_blk_rel rel,
		bool down, bool whole_only)
{
	char dir[PATH_MAX];
	struct dut_blk_node *nd;
	const char *base;

	if (have(s, dev))
		return;
	if (s->n == DUT_BLKSTACK_MAX) {
		s->truncated = true;
		return;
	}
	nd = &s->nodes[s->n];
	memset(nd, 0, sizeof(*nd));
	nd->dev = dev;
	nd->parent = parent;
	nd->rel = rel;
	nd->down = down;
	nd->whole_only = whole_only;
	if (sysdir_of(root, dev, dir, sizeof(dir)) == 0 && (base = strrchr(dir, '/')))
		snprintf(nd->name, sizeof(nd->name), "%s", base + 1);
	else
		snprintf(nd->name, sizeof(nd->name), "%u:%u", major(dev), minor(dev));
	s->n++;
}

/* Each entry of sysdir/sub (holders, slaves) that names a block device. */
static void add_links(const char *root, struct dut_blkstack *s, const char *sysdir, const char *sub, int parent,
		      enum dut_blk_rel rel, bool down, bool whole_only)
{
	char path[PATH_MAX + 16];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%s", sysdir, sub);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char devfile[PATH_MAX + 300];
		dev_t dev;

		if (de->d_name[0] == '.')
			continue;
		snprintf(devfile, sizeof(devfile), "%s/%s/dev", path, de->d_name);
		if (read_dev_file(devfile, &dev) == 0)
			add(root, s, dev, parent, rel, down, whole_only);
	}
}

static void add_partitions(const char *root, struct dut_blkstack *s, const char *sysdir, int parent)
{
	_cleanup_closedir_ DIR *d = opendir(sysdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char pfile[PATH_MAX + 300], devfile[PATH_MAX + 300];
		dev_t dev;

		if (de->d_name[0] == '.')
			continue;
		snprintf(pfile, sizeof(pfile), "%s/%s/partition", sysdir, de->d_name);
		snprintf(devfile, sizeof(devfile), "%s/%s/dev", sysdir, de->d_name);
		if (access(pfile, F_OK) == 0 && read_dev_file(devfile, &dev) == 0)
			add(root, s, dev, parent, DUT_BLK_PARTITION, false, false);
	}
}

int dut_blkstack_walk(const char *sysfs_root, dev_t dev, struct dut_blkstack *ret)
{
	_cleanup_free_ struct loop_fact *loops = NULL;
	struct dut_blkstack *s = ret;
	char sysdir[PATH_MAX];
	size_t nloops = 0;
	int r;

	r = sysdir_of(sysfs_root, dev, sysdir, sizeof(sysdir));
	if (r < 0)
		return r;
	r = list_loops(sysfs_root, &loops, &nloops);
	if (r < 0)
		return r;
	s->n = 0;
	s->truncated = false;
	add(sysfs_root, s, dev, -1, DUT_BLK_SELF, true, false);
	/* breadth first: nodes[] is the queue */
	for (size_t i = 0; i < s->n; i++) {
		struct dut_blk_node nd = s->nodes[i];
		char pfile[PATH_MAX + 16], up[PATH_MAX + 8];
		bool is_partition;

		if (sysdir_of(sysfs_root, nd.dev, sysdir, sizeof(sysdir)) < 0)
			continue;
		if (nd.rel == DUT_BLK_SLAVE_OF)
			continue;       /* its other holders use other blocks (another LVM volume) */
		snprintf(pfile, sizeof(pfile), "%s/partition", sysdir);
		is_partition = access(pfile, F_OK) == 0;
		/* up */
		if (!nd.whole_only)
			add_partitions(sysfs_root, s, sysdir, (int)i);
		add_links(sysfs_root, s, sysdir, "holders", (int)i, DUT_BLK_HOLDER, false, false);
		for (size_t l = 0; l < nloops; l++)
			if (loops[l].backing == nd.dev)
				add(sysfs_root, s, loops[l].dev, (int)i, DUT_BLK_LOOP_OVER, false, false);
		if (!nd.down)
			continue;
		/* down */
		if (is_partition) {
			dev_t disk;

			snprintf(up, sizeof(up), "%s/../dev", sysdir);
			if (read_dev_file(up, &disk) == 0)
				add(sysfs_root, s, disk, (int)i, DUT_BLK_DISK_OF, true, true);
		}
		for (size_t l = 0; l < nloops; l++)
			if (loops[l].dev == nd.dev && loops[l].backing)
				add(sysfs_root, s, loops[l].backing, (int)i, DUT_BLK_BACKING_OF, true, false);
		add_links(sysfs_root, s, sysdir, "slaves", (int)i, DUT_BLK_SLAVE_OF, true, false);
	}
	return 0;
}

static const char *rel_words(enum dut_blk_rel rel)
{
	switch (rel) {
	case DUT_BLK_SELF:
		return "";
	case DUT_BLK_PARTITION:
		return "a partition of";
	case DUT_BLK_HOLDER:
		return "holding";
	case DUT_BLK_LOOP_OVER:
		return "a loop device over";
	case DUT_BLK_DISK_OF:
		return "the disk of";
	case DUT_BLK_BACKING_OF:
		return "the backing device of";
	case DUT_BLK_SLAVE_OF:
		return "a part of";
	}
	return "?";
}

char *dut_blkstack_label(const struct dut_blkstack *s, size_t i, char *buf, size_t len)
{
	size_t used;
	int p;

	if (i >= s->n) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "/dev/%s", s->nodes[i].name);
	if (s->nodes[i].parent < 0)
		return buf;
	/* "/dev/loop2 (a loop device over /dev/loop1, a loop device over /dev/loop0)" */
	for (size_t k = i, depth = 0; s->nodes[k].parent >= 0 && depth < DUT_BLKSTACK_MAX; depth++) {
		p = s->nodes[k].parent;
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s /dev/%s", depth ? ", " : " (", rel_words(s->nodes[k].rel),
			 s->nodes[p].name);
		k = (size_t)p;
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, ")");
	return buf;
}
