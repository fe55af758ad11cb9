/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dutfs lowlevel ops table, connection set-up and the file-system object.
 *
 * Not implemented on purpose (libfuse answers ENOSYS, the kernel then stops
 * asking and handles it itself or fails cleanly):
 *  - xattrs: with a getxattr handler the kernel asks for security.capability
 *    before every write(); PostgreSQL needs no xattrs.
 *  - getlk/setlk/flock: POSIX and flock locks are kept by the kernel for
 *    this mount (all users are local), which is what PostgreSQL's tools need.
 *  - copy_file_range, lseek(SEEK_DATA/HOLE), ioctl, poll: the kernel falls
 *    back to read/write and generic lseek.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/dutfs.h"

int dutfs_itab_init(struct dutfs *fs);
void dutfs_itab_fini(struct dutfs *fs);

static void dutfs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct dutfs *fs = userdata;
	unsigned want = FUSE_CAP_ASYNC_READ | FUSE_CAP_ASYNC_DIO | FUSE_CAP_PARALLEL_DIROPS |
			FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_ATOMIC_O_TRUNC |
			FUSE_CAP_CACHE_SYMLINKS;

	/* the device view: the kernel gathers writes; what reaches us is what a device would see */
	if (fs->view == DUTFS_VIEW_DEVICE)
		want |= FUSE_CAP_WRITEBACK_CACHE;
	conn->want |= want & conn->capable;
	/*
	 * Every change reaches the backing files through this kernel, so a
	 * changed mtime never means someone else changed the data: no
	 * automatic invalidation (it would drop cached pages on getattr).
	 */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	/* 1 MiB requests; libfuse 3.14 derives max_pages from max_write */
	conn->max_write = DUTFS_BUF_MAX;
	conn->max_readahead = DUTFS_BUF_MAX;
	/*
	 * Readahead, writeback and async direct I/O are "background"
	 * requests; the kernel default of 12 in flight caps a QD32 reader.
	 */
	conn->max_background = 128;
	conn->congestion_threshold = 96;
	conn->time_gran = 1;
}

const struct fuse_lowlevel_ops dutfs_ll_ops = {
	.init = dutfs_init,
	.lookup = dutfs_op_lookup,
	.forget = dutfs_op_forget,
	.forget_multi = dutfs_op_forget_multi,
	.getattr = dutfs_op_getattr,
	.setattr = dutfs_op_setattr,
	.readlink = dutfs_op_readlink,
	.mknod = dutfs_op_mknod,
	.mkdir = dutfs_op_mkdir,
	.symlink = dutfs_op_symlink,
	.link = dutfs_op_link,
	.unlink = dutfs_op_unlink,
	.rmdir = dutfs_op_rmdir,
	.rename = dutfs_op_rename,
	.statfs = dutfs_op_statfs,
	.open = dutfs_op_open,
	.create = dutfs_op_create,
	.read = dutfs_op_read,
	.write = dutfs_op_write,
	.flush = dutfs_op_flush,
	.release = dutfs_op_release,
	.fsync = dutfs_op_fsync,
	.fallocate = dutfs_op_fallocate,
	.opendir = dutfs_op_opendir,
	.readdir = dutfs_op_readdir,
	.readdirplus = dutfs_op_readdirplus,
	.releasedir = dutfs_op_releasedir,
	.fsyncdir = dutfs_op_fsyncdir,
};

int dutfs_init_fs(struct dutfs *fs, const struct dutfs_cli *cli, const char *backing,
		  const char *mountpoint)
{
	struct dutfs_tracer_opts to = { .trace_path = cli->trace_path, .view = cli->view };
	struct stat st;
	int r;

	memset(fs, 0, sizeof(*fs));
	fs->root.fd = -1;
	fs->cli = cli;
	fs->view = cli->view;
	fs->owner_uid = getuid();
	fs->owner_gid = getgid();
	fs->switch_creds = geteuid() == 0;
	fs->backing = strdup(backing);
	fs->mountpoint = strdup(mountpoint);
	if (!fs->backing || !fs->mountpoint) {
		r = -ENOMEM;
		goto out_free;
	}
	fs->root.fd = open(backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->root.fd < 0 || fstat(fs->root.fd, &st) < 0) {
		r = -errno;
		goto out_free;
	}
	fs->root.dev = st.st_dev;
	fs->root.ino = st.st_ino;
	fs->root.type = S_IFDIR;
	r = dutfs_itab_init(fs);
	if (r < 0)
		goto out_free;
	r = dutfs_ctl_new(fs, &fs->ctl);
	if (r < 0)
		goto out_itab;
	r = dutfs_tracer_new(&to, &fs->tracer);
	if (r < 0)
		goto out_ctl;
	fs->layers[0] = (struct dutfs_layer){ .ops = &dutfs_tracer_layer, .ctx = fs };
	fs->nlayers = 1;
	return 0;

out_ctl:
	dutfs_ctl_free(fs->ctl);
out_itab:
	dutfs_itab_fini(fs);
out_free:
	if (fs->root.fd >= 0)
		close(fs->root.fd);
	free(fs->backing);
	free(fs->mountpoint);
	return r;
}

void dutfs_fini_fs(struct dutfs *fs)
{
	dutfs_tracer_free(fs->tracer);
	dutfs_ctl_free(fs->ctl);
	dutfs_itab_fini(fs);
	close(fs->root.fd);
	free(fs->backing);
	free(fs->mountpoint);
}
