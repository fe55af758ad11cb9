/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target staging (tools/run/stage.h): one ops row per target type (check,
 * attach, detach), and the filesystem steps they share (mkfs, mount,
 * umount).  The decisions are pure (stage_pure.h); this file gathers the
 * facts and makes the syscalls.  Device safety is dutprobe's
 * (lib/dev_safety.h): the same rules decide what "in use" means.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/mountinfo.h"
#include "lib/units.h"
#include "lib/dev_safety.h"
#include "tools/run/stage.h"
#include "tools/run/stage/stage_pure.h"
#include "tools/run/stage/stage_sys.h"

struct dut_stage {
	const struct target_ops *ops;
	char *path;             /* the target, resolved against base_dir */
	char *dir;              /* dut_stage_dir(): the mountpoint or the directory, or NULL */
	char *device;           /* dut_stage_device(): /dev/loopN or the device, or NULL */
	char *mountpoint;       /* mounted here; NULL when nothing is mounted */
	char *mkfs_command;     /* dut_stage_mkfs_command() */
	char *mount_options;    /* dut_stage_mount_options() */
	int loop_fd;            /* holds the loop device (autoclear) until teardown */
	struct stage_image image;       /* image targets: the file and its directory, held */
	bool created_image;     /* prepare created the image file */
	bool extended_image;    /* prepare made the user's image larger (from orig_size) */
	bool remove_image;      /* spec->remove_created_image */
	uint64_t orig_size;
};

/* What check and prepare share: the spec, resolved once. */
struct stage_ctx {
	const struct dut_stage_spec *spec;
	const struct dut_target *t;
	const struct dut_filesystem *fs;        /* NULL: filesystem none */
	const struct stage_fs_ops *fs_ops;      /* NULL: filesystem none */
	char *path;
};

struct target_ops {
	enum dut_target_type type;
	/* facts and refusals, no side effects */
	int (*check)(const struct stage_ctx *c, struct dut_error *err);
	/* make st->device or st->dir usable; undoes itself on failure */
	int (*attach)(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err);
	/* undo attach; failed: prepare failed (also undo what the user had) */
	int (*detach)(struct dut_stage *st, bool failed, struct dut_error *err);
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Free bytes for an unprivileged writer (f_bavail) of the filesystem holding dir. */
static int free_bytes(const char *dir, uint64_t *ret)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) < 0)
		return -errno;
	*ret = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

/* The nearest existing ancestor of path (path itself if it exists), into out. */
static int existing_ancestor(const char *path, char *out, size_t len)
{
	struct stat st;

	snprintf(out, len, "%s", path);
	for (int depth = 0; depth < PATH_MAX / 2; depth++) {
		char up[PATH_MAX];

		if (stat(out, &st) == 0)
			return 0;
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		stage_dirname(out, up, sizeof(up));
		if (strcmp(up, out) == 0)
			return -ENOENT;
		snprintf(out, len, "%s", up);
	}
	return -ELOOP;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		buf[i] = path[i];
	}
	return 0;
}

/* ---- directory ---- */

static int dir_check(const struct stage_ctx *c, struct dut_error *err)
{
	struct stage_space_facts f = { .type = DUT_TARGET_DIRECTORY, .path = c->path,
				       .need_bytes = c->spec->need_bytes };
	char anc[PATH_MAX], msg[sizeof(err->msg)];
	struct stat st;
	int r;

	if (c->fs) {
		dut_error_set(err, "[target %s] is a directory (%s); a filesystem (%s) needs an image or device "
			      "target, or use filesystem none", c->t->name, c->path, c->fs->name);
		return -EINVAL;
	}
	if (stat(c->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		dut_error_set(err, "[target %s]: %s exists and is not a directory", c->t->name, c->path);
		return -ENOTDIR;
	}
	r = existing_ancestor(c->path, anc, sizeof(anc));
	if (r == 0)
		r = free_bytes(anc, &f.free_bytes);
	if (r < 0) {
		dut_error_set(err, "[target %s]: cannot examine %s: %s", c->t->name, c->path, strerror(-r));
		return r;
	}
	f.fs_dir = anc;
	r = stage_space_check(&f, msg, sizeof(msg));
	if (r < 0)
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
	return r;
}

static int dir_attach(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err)
{
	int r = mkdir_p(c->path, 0755);

	if (r < 0) {
		dut_error_set(err, "[target %s]: cannot create directory %s: %s", c->t->name, c->path, strerror(-r));
		return r;
	}
	/* absolute, so the caller may change directory */
	st->dir = realpath(c->path, NULL);
	if (!st->dir) {
		r = -errno;
		dut_error_set(err, "[target %s]: %s: %s", c->t->name, c->path, strerror(-r));
		return r;
	}
	return 0;
}

static int dir_detach(struct dut_stage *st, bool failed, struct dut_error *err)
{
	return 0;       /* the directory and what is in it stay: they are the user's */
}

/* ---- image file + loop device ---- */

/* The refusals an existing image shares between check and attach: attached
 * to a loop device already, or not a file dutlab may format. */
static int image_vet_existing(const struct stage_ctx *c, const struct stage_image *im, struct dut_error *err)
{
	char dev[64], msg[sizeof(err->msg)];
	int r = stage_loop_find(&im->st, c->path, dev, sizeof(dev));

	if (r > 0) {
		dut_error_set(err, "[target %s]: image %s is attached to %s, so something uses it (a mount, "
			      "another run); if nothing does: umount it, then losetup -d %s", c->t->name,
			      c->path, dev, dev);
		return -EBUSY;
	}
	if (r < 0) {
		dut_error_set(err, "[target %s]: cannot list loop devices in %s/block: %s", c->t->name,
			      stage_sysfs_root(), strerror(-r));
		return r;
	}
	r = stage_image_vet(im, c->path, msg, sizeof(msg));
	if (r < 0)
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
	return r;
}

static int image_check(const struct stage_ctx *c, struct dut_error *err)
{
	struct stage_space_facts f = { .type = DUT_TARGET_IMAGE, .path = c->path,
				       .need_bytes = c->spec->need_bytes, .image_size = c->t->size_bytes,
				       .fs_name = c->fs ? c->fs->name : NULL,
				       .fs_min_bytes = c->fs_ops ? c->fs_ops->min_bytes : 0 };
	char parent[PATH_MAX], msg[sizeof(err->msg)];
	struct stage_image im;
	struct statvfs sv;
	int r;

	/* the same opening as prepare's, read-only: what the dry-run accepts, a run accepts */
	r = stage_image_open(c->path, STAGE_IMAGE_CHECK, c->spec->follow_symlinks, &im, msg, sizeof(msg));
	if (r < 0) {
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
		return r;
	}
	if (im.fd >= 0) {
		f.image_allocated = (uint64_t)im.st.st_blocks * 512;
		r = image_vet_existing(c, &im, err);
		if (r < 0)
			goto out_close;
	}
	stage_dirname(c->path, parent, sizeof(parent));
	if (fstatvfs(im.dir_fd, &sv) < 0) {
		r = -errno;
		dut_error_set(err, "[target %s]: statvfs %s: %s", c->t->name, parent, strerror(-r));
		goto out_close;
	}
	f.free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	f.fs_dir = parent;
	r = stage_space_check(&f, msg, sizeof(msg));
	if (r < 0)
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
out_close:
	stage_image_close(&im);
	return r;
}

/* Put the image back as the user had it (prepare failed), or remove it if it is ours.
 * Through the descriptors of prepare: the path may mean another file by now. */
static void image_restore(struct dut_stage *st, bool failed)
{
	if (st->image.fd < 0)
		return;
	if (st->created_image && (failed || st->remove_image))
		(void)stage_image_unlink(&st->image);
	else if (failed && st->extended_image)
		(void)!ftruncate(st->image.fd, (off_t)st->orig_size);
}

static int image_attach(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err)
{
	char msg[sizeof(err->msg) - 64];
	int fd, r;

	r = stage_image_open(c->path, STAGE_IMAGE_CREATE, c->spec->follow_symlinks, &st->image, msg, sizeof(msg));
	if (r < 0) {
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
		return r;
	}
	fd = st->image.fd;
	st->created_image = st->image.created;
	/* the file check looked at may have been replaced since: vet the one we hold */
	if (!st->created_image) {
		r = image_vet_existing(c, &st->image, err);
		if (r < 0) {
			stage_image_close(&st->image);
			return r;
		}
	}
	/* from now on its contents are dutlab's; without trusted xattrs (some
	 * filesystems) the next prepare refuses it, which is the safe side */
	(void)stage_image_mark(&st->image);
	st->orig_size = (uint64_t)st->image.st.st_size;
	st->extended_image = !st->created_image && st->orig_size < c->t->size_bytes;
	/* allocate every block up to size (holes too): no allocation in the host
	 * filesystem while the configuration is measured, and no ENOSPC later */
	if (fallocate(fd, 0, 0, (off_t)c->t->size_bytes) < 0) {
		char sz[DUT_FMT_LEN];

		r = -errno;
		dut_error_set(err, "[target %s]: cannot allocate %s for image %s: %s", c->t->name,
			      dut_format_size(c->t->size_bytes, sz, sizeof(sz)), c->path, strerror(-r));
		image_restore(st, true);
		return r;
	}
	{
		char dev[64];

		r = stage_loop_attach(fd, c->t->size_bytes, c->path, dev, sizeof(dev), &st->loop_fd, msg,
				      sizeof(msg));
		if (r == 0 && !(st->device = strdup(dev))) {
			stage_loop_detach(TAKE_FD(st->loop_fd), dev);
			snprintf(msg, sizeof(msg), "out of memory");
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
		image_restore(st, true);
		return r;
	}
	return 0;
}

static int image_detach(struct dut_stage *st, bool failed, struct dut_error *err)
{
	int r = 0;

	if (st->device) {
		r = stage_loop_detach(TAKE_FD(st->loop_fd), st->device);
		if (r < 0)
			dut_error_set(err, "%s (image %s) is still attached: another program holds it open; it "
				      "detaches by itself when that program closes it", st->device, st->path);
	}
	image_restore(st, failed);
	return r;
}

/* ---- block device or partition ---- */

/* A partition of the device (sysfs) mounted under its /dev name: 1 with its path in part, 0, -errno. */
static int partition_mounted_by_name(dev_t rdev, const char *mountinfo, char *part, size_t len,
				     struct dut_mount *ret)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", stage_sysfs_root(), major(rdev), minor(rdev));
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char pfile[PATH_MAX];

		if (de->d_name[0] == '.' ||
		    snprintf(pfile, sizeof(pfile), "%s/%s/partition", dir, de->d_name) >= (int)sizeof(pfile) ||
		    access(pfile, F_OK) < 0)
			continue;
		int r;

		snprintf(part, len, "/dev/%s", de->d_name);
		/* the last mount of it: the one on top */
		r = dut_mountinfo_find_source(mountinfo, strlen(mountinfo), part, 1, ret);
		if (r)
			return r;
	}
	return 0;
}

static int device_check(const struct stage_ctx *c, struct dut_error *err)
{
	struct stage_space_facts f = { .type = DUT_TARGET_DEVICE, .path = c->path,
				       .need_bytes = c->spec->need_bytes, .fs_name = c->fs ? c->fs->name : NULL,
				       .fs_min_bytes = c->fs_ops ? c->fs_ops->min_bytes : 0 };
	_cleanup_free_ char *real = NULL, *mountinfo = NULL;
	char msg[sizeof(err->msg)];
	struct safety_report rep;
	_cleanup_free_ struct dut_mount *me = malloc(sizeof(*me));
	struct stat st;
	int r;

	if (!c->t->destructive) {
		dut_error_set(err, "[target %s]: refusing to use device %s without destructive = yes in its "
			      "[target] section (everything on it is lost)", c->t->name, c->path);
		return -EPERM;
	}
	if (!me) {
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	if (stat(c->path, &st) < 0) {
		r = -errno;
		dut_error_set(err, "[target %s]: device %s: %s", c->t->name, c->path, strerror(-r));
		return r;
	}
	if (!S_ISBLK(st.st_mode)) {
		dut_error_set(err, "[target %s]: %s is not a block device%s", c->t->name, c->path,
			      S_ISREG(st.st_mode) ? " (for an image file use type = image)" : "");
		return -ENOTBLK;
	}
	/* first by name: btrfs shows an anonymous 0:N in mountinfo, which dutprobe's
	 * lookup by device number misses (it would only see an exclusive opener) */
	real = realpath(c->path, NULL);
	if (stage_read_text("/proc/self/mountinfo", &mountinfo) == 0) {
		size_t milen = strlen(mountinfo);
		char part[PATH_MAX];

		r = dut_mountinfo_find_source(mountinfo, milen, c->path, 1, me);
		if (r == 0 && real)
			r = dut_mountinfo_find_source(mountinfo, milen, real, 1, me);
		if (r > 0) {
			dut_error_set(err, "[target %s]: %s is mounted at %s (%s); refusing to write (unmount it, "
				      "or pick a device nothing uses)", c->t->name, c->path, me->mount_point, me->fstype);
			return -EBUSY;
		}
		if (r == 0)
			r = partition_mounted_by_name(st.st_rdev, mountinfo, part, sizeof(part), me);
		if (r > 0) {
			dut_error_set(err, "[target %s]: its partition %s is mounted at %s (%s); refusing to write "
				      "(unmount it, or pick a device nothing uses)", c->t->name, part, me->mount_point,
				      me->fstype);
			return -EBUSY;
		}
		if (r < 0) {
			dut_error_set(err, "[target %s]: cannot check whether %s is mounted: %s", c->t->name, c->path,
				      strerror(-r));
			return r;
		}
	}
	/* dutprobe's rules: mounts of it or its partitions, holders, swap, an exclusive opener */
	r = safety_examine(c->path, &rep);
	if (r < 0) {
		dut_error_set(err, "[target %s]: cannot examine %s: %s", c->t->name, c->path, strerror(-r));
		return r;
	}
	if (rep.mounted[0] || rep.in_use[0]) {
		dut_error_set(err, "[target %s]: %s%s%s; refusing to write (unmount it, or pick a device "
			      "nothing uses)", c->t->name, rep.mounted, rep.mounted[0] && rep.in_use[0] ? "; " : "",
			      rep.in_use);
		return -EBUSY;
	}
	{
		_cleanup_close_ int fd = open(c->path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &f.device_bytes) < 0) {
			r = -errno;
			dut_error_set(err, "[target %s]: cannot read the size of %s: %s", c->t->name, c->path,
				      strerror(-r));
			return r;
		}
	}
	r = stage_space_check(&f, msg, sizeof(msg));
	if (r < 0)
		dut_error_set(err, "[target %s]: %s", c->t->name, msg);
	return r;
}

static int device_attach(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err)
{
	st->device = strdup(c->path);
	if (!st->device) {
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int device_detach(struct dut_stage *st, bool failed, struct dut_error *err)
{
	return 0;
}

static const struct target_ops target_ops[] = {
	[DUT_TARGET_DIRECTORY] = { .type = DUT_TARGET_DIRECTORY, .check = dir_check,
				   .attach = dir_attach, .detach = dir_detach },
	[DUT_TARGET_IMAGE] = { .type = DUT_TARGET_IMAGE, .check = image_check,
			       .attach = image_attach, .detach = image_detach },
	[DUT_TARGET_DEVICE] = { .type = DUT_TARGET_DEVICE, .check = device_check,
				.attach = device_attach, .detach = device_detach },
};

/* ---- filesystem: mkfs, mount, umount ---- */

/* Keep the first 3 lines of mkfs output (the error, not a usage text after
 * it) on one line: newlines and tabs become blanks, trailing blanks go. */
static void one_line(char *s)
{
	unsigned lines = 0;
	size_t n;

	for (char *p = s; *p; p++) {
		if (*p == '\n' && ++lines == 3) {
			*p = '\0';
			break;
		}
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	}
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static int run_mkfs(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err)
{
	char prog[PATH_MAX], out[384], cmd[1024], msg[sizeof(err->msg)];
	char **argv = NULL;
	int r, status;

	if (stage_find_program(c->fs_ops->mkfs, prog, sizeof(prog)) < 0) {
		dut_error_set(err, "%s is not installed (apt-get install %s)", c->fs_ops->mkfs, c->fs_ops->package);
		return -ENOENT;
	}
	r = stage_mkfs_argv(c->fs, prog, st->device, c->t->type == DUT_TARGET_IMAGE, &argv, msg, sizeof(msg));
	if (r < 0) {
		dut_error_set(err, "%s", msg);
		return r;
	}
	stage_argv_join(argv, cmd, sizeof(cmd));
	r = stage_run(argv, out, sizeof(out), &status);
	stage_argv_free(argv);
	if (r < 0) {
		dut_error_set(err, "cannot run %s: %s", cmd, strerror(-r));
		return r;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		st->mkfs_command = strdup(cmd);
		return st->mkfs_command ? 0 : -ENOMEM;
	}
	one_line(out);
	if (WIFEXITED(status))
		dut_error_set(err, "%s failed (exit status %d): %s", cmd, WEXITSTATUS(status),
			      out[0] ? out : "no output");
	else
		dut_error_set(err, "%s was killed by signal %d", cmd, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -EIO;
}

/* umount with retries while busy (a process may still be closing files there). */
static int unmount_retry(const char *mp)
{
	for (int tries = 0; tries < 20; tries++) {
		if (umount2(mp, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL)   /* EINVAL: no longer mounted */
			return 0;
		if (errno != EBUSY)
			return -errno;
		sleep_ms(100);
	}
	return -EBUSY;
}

static int mount_fs(const struct stage_ctx *c, struct dut_stage *st, struct dut_error *err)
{
	_cleanup_free_ char *tmpl = NULL, *data = NULL;
	char msg[sizeof(err->msg)];
	unsigned long flags;
	uint64_t avail = 0;
	int r;

	r = mkdir_p(c->spec->mnt_root, 0755);
	if (r < 0) {
		dut_error_set(err, "cannot create the mount root %s: %s", c->spec->mnt_root, strerror(-r));
		return r;
	}
	tmpl = stage_mountpoint_template(c->spec->mnt_root, c->t->name);
	if (!tmpl || !mkdtemp(tmpl)) {
		r = tmpl ? -errno : -ENOMEM;
		dut_error_set(err, "cannot create a mountpoint under %s: %s", c->spec->mnt_root, strerror(-r));
		return r;
	}
	r = stage_mount_options(c->fs, &flags, &data, msg, sizeof(msg));
	if (r < 0) {
		dut_error_set(err, "%s", msg);
		rmdir(tmpl);
		return r;
	}
	if (mount(st->device, tmpl, c->fs_ops->fstype, flags, data[0] ? data : NULL) < 0) {
		r = -errno;
		dut_error_set(err, "mount -t %s%s%s %s %s: %s (the kernel log, dmesg, says why)",
			      c->fs_ops->fstype, data[0] ? " -o " : "", data, st->device, tmpl, strerror(-r));
		rmdir(tmpl);
		return r;
	}
	st->mountpoint = TAKE_PTR(tmpl);
	/* as mount -o would take them: the filesystem's own, then the user's */
	if (asprintf(&st->mount_options, "%s%s%s", c->fs_ops->mount_data(c->fs) ? c->fs_ops->mount_data(c->fs) : "",
		     c->fs_ops->mount_data(c->fs) && c->fs->mount_options ? "," : "",
		     c->fs->mount_options ? c->fs->mount_options : "") < 0) {
		st->mount_options = NULL;
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	/* the new filesystem's own overhead (journal, metadata) counts against need_bytes */
	r = free_bytes(st->mountpoint, &avail);
	if (r < 0)
		dut_error_set(err, "statvfs %s: %s", st->mountpoint, strerror(-r));
	else if (avail < c->spec->need_bytes) {
		char have[DUT_FMT_LEN], need[DUT_FMT_LEN];

		dut_error_set(err, "[target %s]: the new %s on %s has %s free, the configuration needs %s; make "
			      "the target larger", c->t->name, c->fs->name, st->device,
			      dut_format_size(avail, have, sizeof(have)),
			      dut_format_size(c->spec->need_bytes, need, sizeof(need)));
		r = -ENOSPC;
	}
	if (r == 0 && !(st->dir = strdup(st->mountpoint))) {
		dut_error_set(err, "out of memory");
		r = -ENOMEM;
	}
	return r;
}

/* Unmount and remove the mountpoint; 0, or -errno with err saying what is left. */
static int unmount_fs(struct dut_stage *st, struct dut_error *err)
{
	int r;

	if (!st->mountpoint)
		return 0;
	r = unmount_retry(st->mountpoint);
	if (r < 0) {
		dut_error_set(err, "cannot unmount %s (%s): %s; a program still uses it (fuser -vm %s); unmount "
			      "it by hand (umount %s), then %s detaches by itself", st->mountpoint,
			      st->device ? st->device : "?", strerror(-r), st->mountpoint, st->mountpoint,
			      st->device ? st->device : "the device");
		return r;
	}
	rmdir(st->mountpoint);
	free(st->mountpoint);
	st->mountpoint = NULL;
	return 0;
}

/* ---- the API ---- */

static void ctx_done(struct stage_ctx *c)
{
	free(c->path);
	c->path = NULL;
}

/* Resolve the spec and make the checks every target type shares. */
static int ctx_init(const struct dut_stage_spec *s, struct stage_ctx *c, struct dut_error *err)
{
	char prog[PATH_MAX], msg[sizeof(err->msg)];
	int r;

	*c = (struct stage_ctx){ .spec = s };
	if (!s || !s->target || !s->target->path || (unsigned)s->target->type >= DUT_ARRAY_SIZE(target_ops)) {
		dut_error_set(err, "staging: no target given");
		return -EINVAL;
	}
	c->t = s->target;
	if (s->fs && s->fs->type != DUT_FS_NONE) {
		c->fs = s->fs;
		c->fs_ops = stage_fs_ops_of(s->fs->type);
		if (!c->fs_ops) {
			dut_error_set(err, "filesystem %s: unknown type %d", s->fs->name, (int)s->fs->type);
			return -EINVAL;
		}
	}
	c->path = stage_resolve_path(s->base_dir, c->t->path);
	if (!c->path) {
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	if (!c->fs || c->t->type == DUT_TARGET_DIRECTORY)
		return 0;       /* dir_check refuses a filesystem on a directory */
	if (!s->mnt_root || !*s->mnt_root || strlen(s->mnt_root) > 200) {
		dut_error_set(err, "[target %s]: filesystem %s needs a mount root (a directory path of at most "
			      "200 bytes)", c->t->name, c->fs->name);
		return -EINVAL;
	}
	if (stage_find_program(c->fs_ops->mkfs, prog, sizeof(prog)) < 0) {
		dut_error_set(err, "[target %s]: filesystem %s needs %s, which is not installed (apt-get install "
			      "%s)", c->t->name, c->fs->name, c->fs_ops->mkfs, c->fs_ops->package);
		return -ENOENT;
	}
	{       /* the options must make sense before anything is formatted */
		char **argv = NULL;
		_cleanup_free_ char *data = NULL;
		unsigned long flags;

		r = stage_mkfs_argv(c->fs, prog, c->path, false, &argv, msg, sizeof(msg));
		stage_argv_free(argv);
		if (r == 0)
			r = stage_mount_options(c->fs, &flags, &data, msg, sizeof(msg));
		if (r < 0) {
			dut_error_set(err, "[target %s]: %s", c->t->name, msg);
			return r;
		}
	}
	return 0;
}

int dut_stage_check(const struct dut_stage_spec *s, struct dut_error *err)
{
	struct stage_ctx c;
	int r = ctx_init(s, &c, err);

	if (r == 0)
		r = target_ops[c.t->type].check(&c, err);
	ctx_done(&c);
	return r;
}

static void stage_free(struct dut_stage *st)
{
	if (!st)
		return;
	if (st->loop_fd >= 0)
		close(st->loop_fd);
	stage_image_close(&st->image);
	free(st->path);
	free(st->dir);
	free(st->device);
	free(st->mountpoint);
	free(st->mkfs_command);
	free(st->mount_options);
	free(st);
}

int dut_stage_prepare(const struct dut_stage_spec *s, struct dut_stage **ret, struct dut_error *err)
{
	struct stage_ctx c;
	struct dut_stage *st = NULL;
	int r = ctx_init(s, &c, err);

	if (r == 0)
		r = target_ops[c.t->type].check(&c, err);
	if (r == 0 && !(st = calloc(1, sizeof(*st)))) {
		dut_error_set(err, "out of memory");
		r = -ENOMEM;
	}
	if (r < 0)
		goto out_ctx;
	st->ops = &target_ops[c.t->type];
	st->loop_fd = -1;
	stage_image_init(&st->image);
	st->remove_image = s->remove_created_image;
	st->path = TAKE_PTR(c.path);
	c.path = strdup(st->path);
	if (!c.path) {
		dut_error_set(err, "out of memory");
		r = -ENOMEM;
		goto out_free;
	}
	r = st->ops->attach(&c, st, err);
	if (r < 0)
		goto out_free;
	if (c.fs) {
		r = run_mkfs(&c, st, err);
		if (r == 0)
			r = mount_fs(&c, st, err);
		if (r < 0)
			goto out_detach;
	}
	*ret = st;
	ctx_done(&c);
	return 0;

out_detach:
	{
		struct dut_error ignored;

		unmount_fs(st, &ignored);
		st->ops->detach(st, true, &ignored);
	}
out_free:
	stage_free(st);
out_ctx:
	ctx_done(&c);
	return r;
}

const char *dut_stage_dir(const struct dut_stage *s)
{
	return s ? s->dir : NULL;
}

const char *dut_stage_device(const struct dut_stage *s)
{
	return s ? s->device : NULL;
}

const char *dut_stage_mkfs_command(const struct dut_stage *s)
{
	return s ? s->mkfs_command : NULL;
}

const char *dut_stage_mount_options(const struct dut_stage *s)
{
	return s ? s->mount_options : NULL;
}

int dut_stage_teardown(struct dut_stage *s, struct dut_error *err)
{
	int r, r2;

	if (!s)
		return 0;
	r = unmount_fs(s, err);
	if (r < 0) {
		/* still mounted: the mount holds the loop device, which autoclears at
		 * the user's umount; waiting for the detach here would only stall */
		if (s->loop_fd >= 0)
			close(TAKE_FD(s->loop_fd));
		free(s->device);
		s->device = NULL;
		stage_free(s);
		return r;
	}
	r2 = s->ops->detach(s, false, err);
	stage_free(s);
	return r2;
}
