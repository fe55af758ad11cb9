/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target -> struct dp_identity: stat the target, find its block device in
 * sysfs (through the device number, which works for /dev/disk/by-id links
 * and for files alike), and for NVMe send identify/SMART commands to the
 * whole-disk namespace node; behind a USB bridge, ask smartctl about the
 * drive inside (inner.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/mountinfo.h"
#include "lib/file_io.h"
#include "probe/identify/ident.h"
#include "probe/identify/identify.h"

void dp_identity_add_note(struct dp_identity *id, const char *fmt, ...)
{
	va_list ap;

	if (id->nnotes >= DP_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(id->notes[id->nnotes++], sizeof(id->notes[0]), fmt, ap);
	va_end(ap);
}

/* The file system a regular file lives on, and the device number to look up. */
static int describe_file(const char *target, const struct stat *st, struct dp_identity *id,
			 dev_t *ret_dev, char *err, size_t errlen)
{
	_cleanup_free_ char *mountinfo = NULL, *real = NULL;
	_cleanup_free_ struct dut_mount *m = NULL;
	size_t milen = 0;
	struct statfs sfs;
	struct stat sst;
	const char *name;
	dev_t dev = st->st_dev;

	id->file_size_bytes = (uint64_t)st->st_size;
	if (statfs(target, &sfs) == 0 && (name = dp_fs_magic_name((unsigned long)sfs.f_type)))
		dp_strlcpy(id->fs_type, name, sizeof(id->fs_type));
	real = realpath(target, NULL);
	if (real && dut_read_text_alloc("/proc/self/mountinfo", 16u << 20, &mountinfo, &milen) == 0 &&
	    (m = malloc(sizeof(*m))) &&
	    dut_mountinfo_find_covering(mountinfo, milen, major(dev), minor(dev), real, m) == 1) {
		dp_strlcpy(id->mountpoint, m->mount_point, sizeof(id->mountpoint));
		dp_strlcpy(id->fs_type, m->fstype, sizeof(id->fs_type));
		dp_strlcpy(id->fs_source, m->source, sizeof(id->fs_source));
	}

	if (major(dev) == 0) {
		/* btrfs, tmpfs, overlay, NFS, FUSE: an anonymous device number */
		if (strncmp(id->fs_source, "/dev/", 5) == 0 && stat(id->fs_source, &sst) == 0 &&
		    S_ISBLK(sst.st_mode)) {
			dp_identity_add_note(id, "%s reports an anonymous device number (0:%u); "
					     "using its mount source %s", id->fs_type[0] ? id->fs_type :
					     "the file system", minor(dev), id->fs_source);
			*ret_dev = sst.st_rdev;
			return 0;
		}
		snprintf(err, errlen, "%s is on %s (device 0:%u), which has no single block device "
			 "underneath; give dutprobe a file on a disk-backed file system, or the device",
			 target, id->fs_type[0] ? id->fs_type : "a virtual file system", minor(dev));
		return -ENODEV;
	}
	*ret_dev = dev;
	return 0;
}

/*
 * A loop device is a file on another device: walk down to the device that
 * holds the data (at most 4 loops deep), noting each step, so that a file or
 * directory on a mounted image is identified as the disk its image lives
 * on, link and all.  A
 * backing file that cannot be followed leaves the loop device as it is.
 */
static int through_loops(struct dp_identity *id)
{
	for (int depth = 0; depth < 4 && id->dev.is_loop && id->dev.loop_backing[0]; depth++) {
		_cleanup_free_ struct dp_identity *lower = calloc(1, sizeof(*lower));
		struct dp_blockdev bd;
		struct stat st;
		char err[256];
		dev_t dev;
		size_t n;

		if (!lower)
			return -ENOMEM;
		if (stat(id->dev.loop_backing, &st) < 0)
			break;
		if (S_ISBLK(st.st_mode))
			dev = st.st_rdev;
		else if (!S_ISREG(st.st_mode) ||
			 describe_file(id->dev.loop_backing, &st, lower, &dev, err, sizeof(err)) < 0)
			break;
		if (dp_sysfs_blockdev_by_devnum(dp_sysfs_root(), major(dev), minor(dev), &bd) < 0)
			break;
		n = strlen(id->through);
		snprintf(id->through + n, sizeof(id->through) - n, "%s%s (over %s) -> %s", n ? " -> " : "",
			 id->dev.name, id->dev.loop_backing, bd.name);
		if (id->dev.loop_dio == 0)
			dp_identity_add_note(id, "%s has no direct I/O (loop/dio = 0): its reads and writes "
					     "go through the page cache of %s; rates measured through it are "
					     "memory rates until that cache fills", id->dev.name,
					     id->dev.loop_backing);
		dp_identity_add_note(id, "%s is a loop device over %s%s%s; the device facts below are "
				     "those of %s, which holds it", id->dev.name, id->dev.loop_backing,
				     lower->fs_type[0] ? " on " : "", lower->fs_type, bd.name);
		id->dev = bd;
	}
	return 0;
}

static int resolve_target(const char *target, struct dp_identity *id, char *err, size_t errlen)
{
	const char *root = dp_sysfs_root();
	struct stat st;
	dev_t dev;
	int r;

	dp_strlcpy(id->target, target, sizeof(id->target));
	if (stat(target, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot stat %s: %s", target, strerror(errno));
		return r;
	}
	if (S_ISBLK(st.st_mode)) {
		dev = st.st_rdev;
	} else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		/* a directory (a mount point, a data directory) is known by the device beneath it */
		id->kind = S_ISREG(st.st_mode) ? DP_TARGET_FILE : DP_TARGET_DIRECTORY;
		r = describe_file(target, &st, id, &dev, err, errlen);
		if (r < 0)
			return r;
		if (S_ISDIR(st.st_mode))
			id->file_size_bytes = 0;
	} else if (S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "%s is a character device%s; give a block device, a partition "
			 "or a regular file", target, strstr(target, "nvme") ?
			 " (an NVMe controller node); use a namespace such as /dev/nvme0n1" : "");
		return -ENOTBLK;
	} else {
		snprintf(err, errlen, "%s is neither a block device, a regular file nor a directory", target);
		return -ENOTBLK;
	}

	r = dp_sysfs_blockdev_by_devnum(root, major(dev), minor(dev), &id->dev);
	if (r < 0) {
		snprintf(err, errlen, "no block device %u:%u under %s/dev/block (%s)%s", major(dev),
			 minor(dev), root, strerror(-r),
			 strcmp(root, "/sys") ? "; DUTPROBE_SYSFS_ROOT is set" : "");
		return r;
	}
	id->have_dev = true;
	if (id->kind != DP_TARGET_FILE && id->kind != DP_TARGET_DIRECTORY)
		id->kind = id->dev.is_partition && !id->dev.stack[0] ? DP_TARGET_PARTITION :
			   DP_TARGET_DISK;
	/* a loop device named as the target stays the target; a file or directory on one is
	 * known by the disk that holds the loop's backing file */
	return id->kind == DP_TARGET_FILE || id->kind == DP_TARGET_DIRECTORY ? through_loops(id) : 0;
}

static void query_nvme(const char *target, struct dp_identity *id)
{
	struct dp_blockdev *bd = &id->dev;
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX];
	struct stat st;

	/*
	 * Admin commands go to the whole namespace node: partitions and
	 * device-mapper devices above it do not take NVMe passthrough.
	 */
	if (id->kind == DP_TARGET_DISK && !bd->stack[0])
		dp_strlcpy(path, target, sizeof(path));
	else
		snprintf(path, sizeof(path), "/dev/%s", bd->disk);
	dp_strlcpy(id->nvme.dev_path, path, sizeof(id->nvme.dev_path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		dp_identity_add_note(id, "could not open %s for NVMe admin commands: %s%s", path,
				     strerror(errno), errno == EACCES || errno == EPERM ?
				     " (run as root)" : "");
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    (bd->disk_major && (major(st.st_rdev) != bd->disk_major ||
				minor(st.st_rdev) != bd->disk_minor))) {
		dp_identity_add_note(id, "%s is not the block device %u:%u that sysfs names; "
				     "NVMe commands not sent", path, bd->disk_major, bd->disk_minor);
		return;
	}
	id->have_nvme = true;
	dp_nvme_collect(fd, &id->nvme);
}

/*
 * A disk behind a USB bridge: ask smartctl (through env's ops) about the
 * drive inside.  Like the NVMe commands it goes to the whole disk, and only
 * to a node that is the device sysfs names.
 */
static int query_inner(const char *target, const struct dp_inner_env *env, struct dp_identity *id)
{
	struct dp_blockdev *bd = &id->dev;
	struct dp_inner_env def;
	char path[PATH_MAX];
	struct stat st;

	if (!env) {
		dp_inner_env_default(&def);
		env = &def;
	}
	if (id->kind == DP_TARGET_DISK && !bd->stack[0])
		dp_strlcpy(path, target, sizeof(path));
	else
		snprintf(path, sizeof(path), "/dev/%s", bd->disk);
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    (bd->disk_major && (major(st.st_rdev) != bd->disk_major ||
				minor(st.st_rdev) != bd->disk_minor))) {
		id->inner.state = DP_INNER_SKIPPED;
		id->inner.used = -1;
		dp_strlcpy(id->inner.smartctl, env->smartctl, sizeof(id->inner.smartctl));
		dp_strlcpy(id->inner.device, path, sizeof(id->inner.device));
		snprintf(id->inner.reason, sizeof(id->inner.reason),
			 "%.400s is not the block device %u:%u that sysfs names", path, bd->disk_major,
			 bd->disk_minor);
		return 0;
	}
	return dp_inner_query(env, bd->link.usb.model, path, &id->inner);
}

static void add_notes(struct dp_identity *id)
{
	struct dp_blockdev *bd = &id->dev;
	char note[sizeof(id->notes[0])];

	if (bd->link.kind == DP_LINK_USB) {
		dp_usb_bridge_note(&bd->link.usb, bd->disk, &id->inner, note, sizeof(note));
		dp_identity_add_note(id, "%s", note);
	}
	if (bd->is_loop && bd->loop_dio == 0)
		dp_identity_add_note(id, "loop device without direct I/O (loop/dio = 0): its reads "
				     "and writes go through the page cache of %s; rates measured "
				     "here are memory rates until that cache fills",
				     bd->loop_backing[0] ? bd->loop_backing : "the backing file");
	if (id->kind == DP_TARGET_FILE || id->kind == DP_TARGET_DIRECTORY)
		dp_identity_add_note(id, "a %s goes through the %s file system and the page "
				     "cache unless opened with O_DIRECT; the device facts below are "
				     "those of %s", id->kind == DP_TARGET_FILE ? "file" : "directory's I/O",
				     id->fs_type[0] ? id->fs_type : "its", bd->name);
}

int dp_identify(const char *target, const struct dp_inner_env *inner_env, struct dp_identity *id,
		char *err, size_t errlen)
{
	int r;

	memset(id, 0, sizeof(*id));
	id->inner.used = -1;
	r = resolve_target(target, id, err, errlen);
	if (r < 0)
		return r;
	if (id->dev.is_nvme)
		query_nvme(target, id);
	if (id->dev.link.kind == DP_LINK_USB && (r = query_inner(target, inner_env, id)) < 0) {
		snprintf(err, errlen, "out of memory asking smartctl about %s", id->dev.disk);
		return r;
	}
	add_notes(id);
	return 0;
}

int dutprobe_link_ceiling(const char *target_path, double *ret_bytes_per_s, char *desc,
			  size_t desclen)
{
	_cleanup_free_ struct dp_identity *id = calloc(1, sizeof(*id));
	char err[512];
	int r;

	if (desc && desclen)
		desc[0] = '\0';
	if (!id)
		return -ENOMEM;
	r = resolve_target(target_path, id, err, sizeof(err));
	if (r < 0) {
		if (desc && desclen)
			dp_strlcpy(desc, err, desclen);
		return r;
	}
	*ret_bytes_per_s = id->dev.link.ceiling_bytes_per_s;
	if (desc && desclen)
		dp_strlcpy(desc, id->dev.link.desc, desclen);
	return 0;
}
