/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening and discarding targets; see target.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/sysfs_root.h"
#include "lib/units.h"
#include "probe/target.h"

#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#define FALLOC_FL_KEEP_SIZE 0x01
#endif

void target_init(struct probe_target *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

const char *target_kind_name(enum target_kind k)
{
	switch (k) {
	case TARGET_FILE:
		return "file";
	case TARGET_DISK:
		return "block device";
	case TARGET_PARTITION:
		return "partition";
	}
	return "?";
}

static const struct {
	unsigned long magic;
	const char *name;
	bool memory;              /* no device behind it: O_DIRECT means nothing */
} fs_names[] = {
	{ EXT4_SUPER_MAGIC, "ext4", false },
	{ XFS_SUPER_MAGIC, "xfs", false },
	{ BTRFS_SUPER_MAGIC, "btrfs", false },
	{ TMPFS_MAGIC, "tmpfs", true },
	{ RAMFS_MAGIC, "ramfs", true },
	{ 0x65735546, "fuse", false },
	{ NFS_SUPER_MAGIC, "nfs", false },
	{ 0xF2F52010, "f2fs", false },
	{ OVERLAYFS_SUPER_MAGIC, "overlayfs", false },
	{ PROC_SUPER_MAGIC, "proc", true },
	{ SYSFS_MAGIC, "sysfs", true },
};

static const char *fs_name(unsigned long magic, bool *memory)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(fs_names); i++)
		if (fs_names[i].magic == magic) {
			*memory = fs_names[i].memory;
			return fs_names[i].name;
		}
	*memory = false;
	return NULL;
}

static int read_sysfs_u32(unsigned maj, unsigned min, const char *rel, uint32_t *ret)
{
	char path[PATH_MAX];
	_cleanup_fclose_ FILE *f = NULL;
	unsigned v;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/%s", dut_sysfs_root(), maj, min, rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%u", &v) != 1)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* A file's direct-I/O alignment: the logical block size of the filesystem's device. */
static uint32_t file_dio_align(unsigned maj, unsigned min)
{
	uint32_t v;

	if (read_sysfs_u32(maj, min, "queue/logical_block_size", &v) == 0 && v >= 512)
		return v;
	if (read_sysfs_u32(maj, min, "../queue/logical_block_size", &v) == 0 && v >= 512)
		return v;
	return 4096;  /* no device found (btrfs, overlay): 4 KiB is safe on every device we know */
}

static int open_block(const char *path, const struct target_opts *o, struct probe_target *t,
		      const struct stat *st, struct dut_error *err)
{
	char sz[DUT_FMT_LEN], dsz[DUT_FMT_LEN];
	uint64_t bytes;
	int lbs = 0, pbs = 0;
	uint32_t partition;
	/* O_EXCL on a block device: nobody can mount or claim it while we write. */
	int flags = (o->writes ? O_RDWR | O_EXCL : O_RDONLY) | O_DIRECT | O_CLOEXEC;

	t->fd = open(path, flags);
	if (t->fd < 0) {
		int e = errno;

		if (e == EBUSY)
			dut_error_set(err, "%s is in use (mounted, or held by another program); refusing to write", path);
		else
			dut_error_set(err, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (ioctl(t->fd, BLKGETSIZE64, &bytes) < 0 || ioctl(t->fd, BLKSSZGET, &lbs) < 0) {
		dut_error_set(err, "%s: cannot read the device size: %s", path, strerror(errno));
		return -errno;
	}
	if (ioctl(t->fd, BLKPBSZGET, &pbs) < 0)
		pbs = 0;
	t->major = major(st->st_rdev);
	t->minor = minor(st->st_rdev);
	t->kind = read_sysfs_u32(t->major, t->minor, "partition", &partition) == 0 ? TARGET_PARTITION
										     : TARGET_DISK;
	t->lbs_bytes = (uint32_t)lbs;
	t->pbs_bytes = (uint32_t)pbs;
	if (o->size_bytes > bytes) {
		dut_error_set(err, "--size %s is larger than %s (%s)",
			      dut_format_size(o->size_bytes, sz, sizeof(sz)), path,
			      dut_format_size(bytes, dsz, sizeof(dsz)));
		return -EINVAL;
	}
	t->size_bytes = o->size_bytes ? o->size_bytes : bytes;
	return 0;
}

static int open_file(const char *path, const struct target_opts *o, struct probe_target *t,
		     bool exists, struct dut_error *err)
{
	struct statfs sfs;
	struct stat st;
	const char *fs;
	bool memory;
	int flags = O_RDWR | O_DIRECT | O_CLOEXEC;

	if (!exists && !o->size_bytes) {
		dut_error_set(err, "%s does not exist; give --size SIZE to create a test file there", path);
		return -ENOENT;
	}
	if (!exists)
		flags |= O_CREAT | O_EXCL;
	t->new_file = !exists;
	/* Read-write even for reads: a sparse file is laid out before it is read. */
	t->fd = open(path, flags, 0600);
	if (t->fd < 0 && (errno == EACCES || errno == EROFS) && exists && !o->writes && !o->size_bytes)
		t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	t->writable = t->fd >= 0 && (fcntl(t->fd, F_GETFL) & O_ACCMODE) == O_RDWR;
	if (t->fd < 0 && errno == EINVAL) {
		/* No O_DIRECT: name the filesystem. */
		_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
		const char *name = NULL;

		if (fd >= 0 && fstatfs(fd, &sfs) == 0)
			name = fs_name((unsigned long)sfs.f_type, &memory);
		dut_error_set(err, "no O_DIRECT support on %s (%s): put the file on a filesystem with direct I/O (ext4, xfs, btrfs) or use a block device",
			      name ? name : "this filesystem", path);
		return -EINVAL;
	}
	if (t->fd < 0) {
		dut_error_set(err, "cannot %s %s: %s", exists ? "open" : "create", path, strerror(errno));
		return -errno;
	}
	if (fstatfs(t->fd, &sfs) < 0 || fstat(t->fd, &st) < 0) {
		dut_error_set(err, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (exists && t->writable && st.st_uid != geteuid() && st.st_uid != 0) {
		/* Another user made it (say in /tmp, before us): not ours to write, or to lay out. */
		if (o->writes || o->size_bytes) {
			dut_error_set(err, "%s belongs to uid %u, not to you: refusing to write to another "
				      "user's file; remove it or give a path of your own", path,
				      (unsigned)st.st_uid);
			return -EPERM;
		}
		close(t->fd);
		t->writable = false;
		if ((t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0 || fstat(t->fd, &st) < 0) {
			int e = errno;

			dut_error_set(err, "cannot open %s: %s", path, strerror(e));
			return -e;
		}
	}
	fs = fs_name((unsigned long)sfs.f_type, &memory);
	snprintf(t->fstype, sizeof(t->fstype), "%s", fs ? fs : "unknown");
	if (memory) {
		dut_error_set(err, "no O_DIRECT support on %s (%s): it is memory, not a device; put the file on a disk filesystem (ext4, xfs, btrfs) or use a block device",
			      t->fstype, path);
		if (!exists)
			unlink(path);
		return -EINVAL;
	}
	t->kind = TARGET_FILE;
	t->major = major(st.st_dev);
	t->minor = minor(st.st_dev);
	t->lbs_bytes = file_dio_align(t->major, t->minor);
	t->pbs_bytes = 0;
	if (o->size_bytes && o->size_bytes % t->lbs_bytes) {
		dut_error_set(err, "--size %" PRIu64 " is not a multiple of the block size %u of %s", o->size_bytes,
			      t->lbs_bytes, path);
		if (!exists)
			unlink(path);
		return -EINVAL;
	}
	if (o->size_bytes > (uint64_t)st.st_size) {
		if (ftruncate(t->fd, (off_t)o->size_bytes) < 0) {
			int e = errno;

			dut_error_set(err, "cannot size %s to %" PRIu64 " bytes: %s", path, o->size_bytes, strerror(e));
			if (!exists)
				unlink(path);
			return -e;
		}
		t->created = true;
	}
	t->size_bytes = o->size_bytes ? o->size_bytes : (uint64_t)st.st_size;
	if (t->size_bytes < t->lbs_bytes) {
		dut_error_set(err, "%s is empty or smaller than one block; give --size SIZE", path);
		return -EINVAL;
	}
	t->size_bytes -= t->size_bytes % t->lbs_bytes;
	return target_refresh_sparse(t);
}

int target_refresh_sparse(struct probe_target *t)
{
	struct stat st;

	if (t->kind != TARGET_FILE)
		return 0;
	if (fstat(t->fd, &st) < 0)
		return -errno;
	t->sparse = (uint64_t)st.st_blocks * 512 < t->size_bytes;
	return 0;
}

int target_has_hole(const struct probe_target *t, uint64_t off, uint64_t len, bool *ret)
{
	off_t h;

	if (t->kind != TARGET_FILE) {
		*ret = false;
		return 0;
	}
	h = lseek(t->fd, (off_t)off, SEEK_HOLE);
	if (h < 0) {
		if (errno != EINVAL && errno != ENXIO)
			return -errno;
		*ret = t->sparse;   /* no SEEK_HOLE here: fall back to the block count */
		return 0;
	}
	*ret = (uint64_t)h < off + len;
	return 0;
}

int target_open(const char *path, const struct target_opts *o, struct probe_target *t,
		struct dut_error *err)
{
	struct stat st;
	bool exists = true;
	int ret;

	target_init(t);
	snprintf(t->path, sizeof(t->path), "%s", path);
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			dut_error_set(err, "cannot examine %s: %s", path, strerror(errno));
			return -errno;
		}
		exists = false;
	}
	t->writable = o->writes;   /* files: open_file() says what it got */
	if (exists && S_ISDIR(st.st_mode)) {
		dut_error_set(err, "%s is a directory; give a file inside it (created with --size SIZE) or a block device", path);
		return -EISDIR;
	}
	if (exists && S_ISBLK(st.st_mode))
		ret = open_block(path, o, t, &st, err);
	else if (!exists || S_ISREG(st.st_mode))
		ret = open_file(path, o, t, exists, err);
	else {
		dut_error_set(err, "%s is neither a regular file nor a block device", path);
		return -EINVAL;
	}
	if (ret < 0)
		target_close(t);
	return ret;
}

void target_close(struct probe_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int target_discard(struct probe_target *t, uint64_t off, uint64_t len)
{
	if (t->kind == TARGET_FILE) {
		if (fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0)
			return errno == ENOTSUP ? -EOPNOTSUPP : -errno;
		return target_refresh_sparse(t);
	}
	uint64_t range[2] = { off, len };

	if (ioctl(t->fd, BLKDISCARD, range) < 0)
		return errno == ENOTSUP ? -EOPNOTSUPP : -errno;
	return 0;
}
