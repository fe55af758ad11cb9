/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block device facts from sysfs.  Every read goes through the sysfs root
 * ($DUTPROBE_SYSFS_ROOT, default /sys), so tests run this code on fixture
 * trees.  Paths inside the tree are kept relative to the root
 * ("/devices/pci0000:00/.../block/nvme0n1"); values are parsed by the pure
 * helpers in sysfs_parse.c and link.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/sysfs_root.h"
#include "probe/identify/ident.h"

#define MAX_STACK_DEPTH 8
#define MAX_ANCESTORS 64

const char *dp_sysfs_root(void)
{
	return dut_sysfs_root();
}

static int join(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, len, "%s%s%s%s%s", a, b && *b ? "/" : "", b ? b : "",
			 c && *c ? "/" : "", c ? c : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Read root/rel/attr (attr may be NULL) into buf, trailing newline removed. */
static int read_attr(const char *root, const char *rel, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	int r;

	r = join(path, sizeof(path), root, rel[0] == '/' ? rel + 1 : rel, attr);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	dp_strip(buf);
	return 0;
}

static int attr_u64(const char *root, const char *rel, const char *attr, uint64_t *ret)
{
	char buf[64];
	int r = read_attr(root, rel, attr, buf, sizeof(buf));

	return r < 0 ? r : dp_parse_u64(buf, ret);
}

static void attr_str(const char *root, const char *rel, const char *attr, char *dst, size_t len)
{
	char buf[512];

	if (read_attr(root, rel, attr, buf, sizeof(buf)) == 0)
		dp_strlcpy(dst, buf, len);
}

static bool attr_exists(const char *root, const char *rel, const char *attr)
{
	char path[PATH_MAX * 2];

	return join(path, sizeof(path), root, rel[0] == '/' ? rel + 1 : rel, attr) == 0 &&
	       access(path, F_OK) == 0;
}

/* Resolve root/rel (following symlinks) to a path relative to the root. */
static int resolve(const char *root, const char *rel, char *ret, size_t len)
{
	char path[PATH_MAX * 2];
	_cleanup_free_ char *real = NULL, *realroot = NULL;
	size_t n;
	int r;

	r = join(path, sizeof(path), root, rel[0] == '/' ? rel + 1 : rel, NULL);
	if (r < 0)
		return r;
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	realroot = realpath(root, NULL);
	if (!realroot)
		return -errno;
	n = strlen(realroot);
	if (strcmp(realroot, "/") == 0)
		n = 0;
	else if (strncmp(real, realroot, n) != 0 || (real[n] != '/' && real[n] != '\0'))
		return -EXDEV;  /* a link that leaves the tree */
	if ((size_t)snprintf(ret, len, "%s", real[n] ? real + n : "/") >= len)
		return -ENAMETOOLONG;
	return 0;
}

static void base_of(const char *path, char *buf, size_t len)
{
	const char *s = strrchr(path, '/');

	dp_strlcpy(buf, s ? s + 1 : path, len);
}

/* Cut the last component in place; false at the top. */
static bool up(char *path)
{
	char *s = strrchr(path, '/');

	if (!s || s == path)
		return false;
	*s = '\0';
	return true;
}

static void readlink_base(const char *root, const char *rel, const char *attr, char *buf,
			  size_t len)
{
	char path[PATH_MAX * 2], target[PATH_MAX];
	ssize_t n;

	if (join(path, sizeof(path), root, rel + (rel[0] == '/'), attr) < 0)
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base_of(target, buf, len);
}

static void read_usb(const char *root, const char *dir, const char *child, struct dp_usb_link *u)
{
	char buf[64];
	double speed;

	base_of(dir, u->dev, sizeof(u->dev));
	if (read_attr(root, dir, "idVendor", buf, sizeof(buf)) == 0)
		dp_parse_hex16(buf, &u->vid);
	if (read_attr(root, dir, "idProduct", buf, sizeof(buf)) == 0)
		dp_parse_hex16(buf, &u->pid);
	if (read_attr(root, dir, "bcdDevice", buf, sizeof(buf)) == 0)
		dp_parse_hex16(buf, &u->bcd);
	attr_str(root, dir, "manufacturer", u->manufacturer, sizeof(u->manufacturer));
	attr_str(root, dir, "product", u->product, sizeof(u->product));
	attr_str(root, dir, "serial", u->serial, sizeof(u->serial));
	attr_str(root, dir, "version", u->version, sizeof(u->version));
	if (read_attr(root, dir, "speed", buf, sizeof(buf)) == 0 &&
	    sscanf(buf, "%lf", &speed) == 1 && speed > 0)
		u->speed_mbps = speed < 2 ? 1 : (unsigned)(speed + 0.5);
	if (read_attr(root, dir, "rx_lanes", buf, sizeof(buf)) == 0) {
		uint64_t lanes;
		if (dp_parse_u64(buf, &lanes) == 0 && lanes < 16)
			u->lanes = (unsigned)lanes;
	}
	/* The interface (2-1:1.0) below the device is bound to uas or usb-storage. */
	if (child[0])
		readlink_base(root, child, "driver", u->driver, sizeof(u->driver));
	u->model = dp_usb_bridge_lookup(u->vid, u->pid, u->bcd);
}

static void read_pcie(const char *root, const char *dir, struct dp_pcie_link *p)
{
	char buf[64];
	uint64_t w;

	base_of(dir, p->addr, sizeof(p->addr));
	if (read_attr(root, dir, "current_link_speed", buf, sizeof(buf)) == 0)
		dp_parse_link_speed_gts(buf, &p->cur_gts);
	if (read_attr(root, dir, "max_link_speed", buf, sizeof(buf)) == 0)
		dp_parse_link_speed_gts(buf, &p->max_gts);
	if (attr_u64(root, dir, "current_link_width", &w) == 0 && w <= 32)
		p->cur_width = (unsigned)w;
	if (attr_u64(root, dir, "max_link_width", &w) == 0 && w <= 32)
		p->max_width = (unsigned)w;
	p->present = p->cur_gts > 0 && p->cur_width > 0;
}

static void read_sata(const char *root, const char *atadir, unsigned port, struct dp_sata_link *s)
{
	char rel[PATH_MAX], buf[64];

	snprintf(s->name, sizeof(s->name), "link%u", port);
	/* .../ata3/link3/ata_link/link3/sata_spd, else the class directory */
	if (snprintf(rel, sizeof(rel), "%s/link%u/ata_link/link%u", atadir, port, port) >=
		    (int)sizeof(rel) ||
	    read_attr(root, rel, "sata_spd", buf, sizeof(buf)) != 0) {
		snprintf(rel, sizeof(rel), "/class/ata_link/link%u", port);
		if (read_attr(root, rel, "sata_spd", buf, sizeof(buf)) != 0)
			return;
	}
	dp_parse_sata_spd(buf, &s->gbps);
}

/*
 * Walk from the device directory towards /devices; the first link found is
 * the device's own (USB device, ATA port, or PCIe function); for USB and
 * SATA the next PCIe function up is the host controller's link.
 */
static void find_link(const char *root, const char *devdir, struct dp_link *l)
{
	char dir[PATH_MAX], child[PATH_MAX] = "", base[NAME_MAX + 1];
	unsigned port;

	dp_strlcpy(dir, devdir, sizeof(dir));
	for (int i = 0; i < MAX_ANCESTORS; i++) {
		base_of(dir, base, sizeof(base));
		if (strcmp(dir, "/devices/virtual") == 0 || strncmp(dir, "/devices/virtual/", 17) == 0) {
			if (l->kind == DP_LINK_UNKNOWN)
				l->kind = DP_LINK_NONE;
			return;
		}
		if (l->kind == DP_LINK_UNKNOWN && attr_exists(root, dir, "idVendor") &&
		    attr_exists(root, dir, "idProduct") && attr_exists(root, dir, "speed")) {
			l->kind = DP_LINK_USB;
			read_usb(root, dir, child, &l->usb);
		} else if (l->kind == DP_LINK_UNKNOWN && sscanf(base, "ata%u", &port) == 1 &&
			   strspn(base + 3, "0123456789") == strlen(base + 3)) {
			l->kind = DP_LINK_SATA;
			read_sata(root, dir, port, &l->sata);
		} else if (l->kind == DP_LINK_UNKNOWN && strncmp(base, "virtio", 6) == 0) {
			l->kind = DP_LINK_VIRTUAL;
			return;
		} else if (attr_exists(root, dir, "current_link_speed")) {
			read_pcie(root, dir, &l->pcie);
			if (l->kind == DP_LINK_UNKNOWN)
				l->kind = DP_LINK_PCIE;
			return;
		}
		dp_strlcpy(child, dir, sizeof(child));
		if (!up(dir) || strcmp(dir, "/devices") == 0)
			return;
	}
}

static void read_queue(const char *root, struct dp_blockdev *bd)
{
	const char *d = bd->disk_syspath;
	char buf[256];
	uint64_t v;
	int rot;

	if (attr_u64(root, d, "size", &v) == 0)
		bd->disk_size_bytes = v * 512;  /* always 512-byte sectors */
	if (read_attr(root, d, "dev", buf, sizeof(buf)) == 0)
		dp_parse_devnum(buf, &bd->disk_major, &bd->disk_minor);
	if (read_attr(root, d, "queue/rotational", buf, sizeof(buf)) == 0 &&
	    dp_parse_int(buf, &rot) == 0)
		bd->rotational = rot;
	if (attr_u64(root, d, "queue/logical_block_size", &v) == 0 && v <= UINT32_MAX)
		bd->logical_block_bytes = (uint32_t)v;
	if (attr_u64(root, d, "queue/physical_block_size", &v) == 0 && v <= UINT32_MAX)
		bd->physical_block_bytes = (uint32_t)v;
	attr_u64(root, d, "queue/optimal_io_size", &bd->optimal_io_bytes);
	attr_u64(root, d, "queue/minimum_io_size", &bd->minimum_io_bytes);
	if (read_attr(root, d, "queue/scheduler", buf, sizeof(buf)) == 0)
		dp_parse_scheduler(buf, bd->scheduler, sizeof(bd->scheduler));
	attr_str(root, d, "queue/write_cache", bd->write_cache, sizeof(bd->write_cache));
	attr_u64(root, d, "queue/discard_max_bytes", &bd->discard_max_bytes);
	attr_u64(root, d, "queue/discard_granularity", &bd->discard_granularity_bytes);
	/* Linux 6.11+: untorn writes (RWF_ATOMIC) the device and driver guarantee */
	attr_u64(root, d, "queue/atomic_write_unit_max_bytes", &bd->atomic_write_unit_max_bytes);

	/* SCSI: device/vendor + model + rev; NVMe: device/model + serial + firmware_rev */
	attr_str(root, d, "device/vendor", bd->vendor, sizeof(bd->vendor));
	attr_str(root, d, "device/model", bd->model, sizeof(bd->model));
	attr_str(root, d, "device/serial", bd->serial, sizeof(bd->serial));
	attr_str(root, d, "device/firmware_rev", bd->firmware, sizeof(bd->firmware));
	if (!bd->firmware[0])
		attr_str(root, d, "device/rev", bd->firmware, sizeof(bd->firmware));

	if (attr_exists(root, d, "loop")) {
		bd->is_loop = true;
		attr_str(root, d, "loop/backing_file", bd->loop_backing, sizeof(bd->loop_backing));
		if (read_attr(root, d, "loop/dio", buf, sizeof(buf)) == 0)
			dp_parse_int(buf, &bd->loop_dio);
	}
}

/* The only slave of a device-mapper/md device, or -ENOENT/-E2BIG. */
static int single_slave(const char *root, const char *diskdir, char *name, size_t len)
{
	char path[PATH_MAX * 2];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int n = 0;

	if (join(path, sizeof(path), root, diskdir + 1, "slaves") < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n++ == 0)
			dp_strlcpy(name, de->d_name, len);
	}
	return n == 0 ? -ENOENT : n == 1 ? 0 : -E2BIG;
}

/* For an NVMe multipath head (nvme-subsystem), the first path's directory. */
static void nvme_path_dir(const char *root, const char *diskdir, char *ret, size_t len)
{
	char path[PATH_MAX * 2], rel[PATH_MAX + 64];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	dp_strlcpy(ret, diskdir, len);
	if (!strstr(diskdir, "/nvme-subsystem/"))
		return;
	if (join(path, sizeof(path), root, diskdir + 1, "multipath") < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(rel, sizeof(rel), "%s/multipath/%s", diskdir, de->d_name) <
		    (int)sizeof(rel))
			resolve(root, rel, ret, len);
		return;
	}
}

static int fill_from_devpath(const char *root, const char *devpath, struct dp_blockdev *bd,
			     int depth)
{
	char buf[64], slave[64], rel[PATH_MAX], walk[PATH_MAX];
	uint64_t v;
	int r;

	base_of(devpath, bd->name, sizeof(bd->name));
	if (read_attr(root, devpath, "dev", buf, sizeof(buf)) < 0)
		return -ENODEV;  /* not a block device directory */
	dp_parse_devnum(buf, &bd->major, &bd->minor);
	if (attr_u64(root, devpath, "size", &v) == 0)
		bd->size_bytes = v * 512;

	dp_strlcpy(bd->disk_syspath, devpath, sizeof(bd->disk_syspath));
	if (attr_exists(root, devpath, "partition")) {
		bd->is_partition = true;
		if (attr_u64(root, devpath, "partition", &v) == 0 && v < 1u << 20)
			bd->partno = (unsigned)v;
		if (attr_u64(root, devpath, "start", &v) == 0)
			bd->part_start_bytes = v * 512;
		up(bd->disk_syspath);
	}
	base_of(bd->disk_syspath, bd->disk, sizeof(bd->disk));

	/* dm-crypt, LVM on one PV, md on one leg: describe the device underneath */
	r = depth < MAX_STACK_DEPTH ? single_slave(root, bd->disk_syspath, slave, sizeof(slave)) : -ELOOP;
	if (r == 0) {
		struct dp_blockdev lower;
		size_t n;

		snprintf(rel, sizeof(rel), "/class/block/%s", slave);
		if (resolve(root, rel, walk, sizeof(walk)) == 0) {
			memset(&lower, 0, sizeof(lower));
			lower.rotational = -1;
			lower.loop_dio = -1;
			if (snprintf(lower.stack, sizeof(lower.stack), "%s%s%s", bd->stack,
				     bd->stack[0] ? " -> " : "", bd->name) >= (int)sizeof(lower.stack))
				return -ENAMETOOLONG;
			if (fill_from_devpath(root, walk, &lower, depth + 1) == 0) {
				*bd = lower;
				return 0;
			}
		}
		n = strlen(bd->stack);
		snprintf(bd->stack + n, sizeof(bd->stack) - n, "%s%s over %s (not readable)",
			 n ? " -> " : "", bd->name, slave);
	} else if (r == -E2BIG) {
		size_t n = strlen(bd->stack);
		snprintf(bd->stack + n, sizeof(bd->stack) - n,
			 "%s%s spans several devices (RAID/LVM): the facts below are its own",
			 n ? " -> " : "", bd->name);
	}

	read_queue(root, bd);
	if (strncmp(bd->disk, "nvme", 4) == 0 &&
	    (strstr(bd->disk_syspath, "/nvme/") || strstr(bd->disk_syspath, "/nvme-subsystem/"))) {
		bd->is_nvme = true;
		nvme_path_dir(root, bd->disk_syspath, walk, sizeof(walk));
		dp_strlcpy(rel, walk, sizeof(rel));
		up(rel);  /* .../nvme/nvme0/nvme0n1 -> .../nvme/nvme0 */
		base_of(rel, bd->nvme_ctrl, sizeof(bd->nvme_ctrl));
	} else {
		dp_strlcpy(walk, bd->disk_syspath, sizeof(walk));
	}
	find_link(root, walk, &bd->link);
	dp_link_finish(&bd->link, bd->is_loop ? bd->loop_backing : NULL);
	return 0;
}

static int fill_from_rel(const char *root, const char *rel, struct dp_blockdev *ret)
{
	struct dp_blockdev bd;
	char devpath[PATH_MAX];
	int r;

	r = resolve(root, rel, devpath, sizeof(devpath));
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	memset(&bd, 0, sizeof(bd));
	bd.rotational = -1;
	bd.loop_dio = -1;
	r = fill_from_devpath(root, devpath, &bd, 0);
	if (r < 0)
		return r;
	*ret = bd;
	return 0;
}

int dp_sysfs_blockdev_by_name(const char *root, const char *name, struct dp_blockdev *ret)
{
	char rel[128];

	if (!name[0] || strchr(name, '/') || strlen(name) > 64)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "/class/block/%s", name);
	return fill_from_rel(root, rel, ret);
}

int dp_sysfs_blockdev_by_devnum(const char *root, unsigned major, unsigned minor,
				struct dp_blockdev *ret)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/dev/block/%u:%u", major, minor);
	return fill_from_rel(root, rel, ret);
}
