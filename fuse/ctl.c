/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The virtual control directory MNT/.dutfs (reserved node ids 2..4):
 *   stats.json  rendered at open() into a per-open buffer, so that one
 *               reader sees one consistent document (direct_io: no caching)
 *   control     write one command per write() (fuse/ctl_cmd.h); only the
 *               mounting user may write; reading returns the status of the
 *               last command, "ok\n" or "error: ...\n"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/ctl_cmd.h"
#include "fuse/dutfs.h"
#include "fuse/shaper.h"

/* st_ino values shown for the virtual files: far from any backing inode number */
#define CTL_ST_INO_BASE 0xfffffffffff00000ull

struct dutfs_ctl {
	struct timespec mounted;    /* times shown for the virtual nodes */
	pthread_mutex_t lock;
	char status[DUTFS_CTL_LABEL_MAX + 512]; /* protected by lock */
};

struct ctl_buf {
	char *data;
	size_t len;
};

static const struct {
	const char *name;
	fuse_ino_t ino;
} ctl_files[] = {
	{ "stats.json", DUTFS_INO_STATS },
	{ "control", DUTFS_INO_CONTROL },
};

int dutfs_ctl_new(struct dutfs *fs, struct dutfs_ctl **ret)
{
	struct dutfs_ctl *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &c->mounted);
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->status, sizeof(c->status), "ok\n");
	*ret = c;
	return 0;
}

void dutfs_ctl_free(struct dutfs_ctl *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void dutfs_ctl_attr(struct dutfs *fs, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = CTL_ST_INO_BASE + ino;
	st->st_uid = fs->owner_uid;
	st->st_gid = fs->owner_gid;
	st->st_atim = st->st_mtim = st->st_ctim = fs->ctl->mounted;
	st->st_blksize = 4096;
	switch (ino) {
	case DUTFS_INO_CTLDIR:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		break;
	case DUTFS_INO_STATS:
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		break;
	default:
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		break;
	}
}

fuse_ino_t dutfs_ctl_lookup_name(fuse_ino_t parent, const char *name)
{
	if (parent == FUSE_ROOT_ID)
		return strcmp(name, DUTFS_CTL_NAME) ? 0 : DUTFS_INO_CTLDIR;
	if (parent != DUTFS_INO_CTLDIR)
		return 0;
	for (size_t i = 0; i < sizeof(ctl_files) / sizeof(ctl_files[0]); i++)
		if (!strcmp(name, ctl_files[i].name))
			return ctl_files[i].ino;
	return 0;
}

void dutfs_ctl_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct dutfs *fs = dutfs_of(req);
	struct fuse_entry_param e;
	fuse_ino_t ino = dutfs_ctl_lookup_name(parent, name);

	if (!ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	dutfs_ctl_attr(fs, ino, &e.attr);
	dutfs_fill_entry_timeouts(&e);
	fuse_reply_entry(req, &e);
}

void dutfs_ctl_getattr(fuse_req_t req, fuse_ino_t ino)
{
	struct stat st;

	dutfs_ctl_attr(dutfs_of(req), ino, &st);
	fuse_reply_attr(req, &st, DUTFS_TIMEOUT_S);
}

void dutfs_ctl_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set)
{
	/* O_TRUNC on control (a shell's "echo cmd > control") sends size 0: accept it */
	if (to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
		       FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if ((to_set & FUSE_SET_ATTR_SIZE) && (ino != DUTFS_INO_CONTROL || attr->st_size != 0)) {
		fuse_reply_err(req, ino == DUTFS_INO_CTLDIR ? EISDIR : EPERM);
		return;
	}
	dutfs_ctl_getattr(req, ino);
}

static bool may_write(fuse_req_t req)
{
	return fuse_req_ctx(req)->uid == dutfs_of(req)->owner_uid;
}

void dutfs_ctl_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	bool writing = (fi->flags & O_ACCMODE) != O_RDONLY;
	struct ctl_buf *b;
	int r;

	if (ino == DUTFS_INO_CTLDIR) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (writing && (ino == DUTFS_INO_STATS || !may_write(req))) {
		fuse_reply_err(req, EACCES);
		return;
	}
	fi->direct_io = 1;
	fi->fh = 0;
	if (ino == DUTFS_INO_STATS) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		r = dutfs_tracer_render_stats(fs, &b->data, &b->len);
		if (r < 0) {
			free(b);
			fuse_reply_err(req, -r);
			return;
		}
		fi->fh = (uint64_t)(uintptr_t)b;
	}
	if (fuse_reply_open(req, fi) < 0 && fi->fh) {
		b = (struct ctl_buf *)(uintptr_t)fi->fh;
		free(b->data);
		free(b);
	}
}

static void reply_slice(fuse_req_t req, const char *data, size_t len, size_t size, off_t off)
{
	if (off < 0 || (size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, data + off, len - (size_t)off < size ? len - (size_t)off : size);
}

void dutfs_ctl_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	char status[sizeof(fs->ctl->status)];

	if (ino == DUTFS_INO_STATS) {
		struct ctl_buf *b = (struct ctl_buf *)(uintptr_t)fi->fh;

		reply_slice(req, b->data, b->len, size, off);
		return;
	}
	pthread_mutex_lock(&fs->ctl->lock);
	memcpy(status, fs->ctl->status, sizeof(status));
	pthread_mutex_unlock(&fs->ctl->lock);
	reply_slice(req, status, strlen(status), size, off);
}

static int run_command(struct dutfs *fs, const struct dutfs_ctl_cmd *c, struct dut_error *err)
{
	int r = 0;

	switch (c->verb) {
	case DUTFS_CTL_MARK:
		r = dutfs_tracer_mark(fs->tracer, c->label);
		if (r < 0)
			dut_error_set(err, "mark: could not queue the marker: %s", strerror(-r));
		break;
	case DUTFS_CTL_TRACE_ON:
	case DUTFS_CTL_TRACE_OFF:
		r = dutfs_tracer_set_enabled(fs->tracer, c->verb == DUTFS_CTL_TRACE_ON);
		if (r == -ENOENT)
			dut_error_set(err, "no trace file: dutfs was mounted without --trace");
		break;
	case DUTFS_CTL_CRASH:
	case DUTFS_CTL_RECOVER:
	case DUTFS_CTL_RELOAD:
		if (!fs->shaper) {
			dut_error_set(err, "no shaping: dutfs was mounted without --shape");
			return -ENOENT;
		}
		if (c->verb == DUTFS_CTL_CRASH)
			r = dutfs_shaper_crash(fs->shaper, err);
		else if (c->verb == DUTFS_CTL_RECOVER)
			r = dutfs_shaper_recover(fs->shaper, err);
		else
			r = dutfs_shaper_reload(fs->shaper, err);
		if (r < 0)
			fuse_log(FUSE_LOG_ERR, "dutfs: control: %s\n", err->msg);
		else
			fuse_log(FUSE_LOG_INFO, "dutfs: control: %s done\n",
				 c->verb == DUTFS_CTL_CRASH ? "crash" :
				 c->verb == DUTFS_CTL_RECOVER ? "recover" : "reload");
		break;
	}
	return r;
}

void dutfs_ctl_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_ctl_cmd cmd;
	struct dut_error err = { .msg = "" };
	int r;

	if (ino != DUTFS_INO_CONTROL || !may_write(req)) {
		fuse_reply_err(req, EACCES);
		return;
	}
	r = dutfs_ctl_parse(buf, size, &cmd, &err);
	if (r == 0)
		r = run_command(fs, &cmd, &err);
	pthread_mutex_lock(&fs->ctl->lock);
	if (r == 0)
		snprintf(fs->ctl->status, sizeof(fs->ctl->status), "ok\n");
	else
		snprintf(fs->ctl->status, sizeof(fs->ctl->status), "error: %s\n", err.msg);
	pthread_mutex_unlock(&fs->ctl->lock);
	if (r < 0)
		fuse_reply_err(req, r == -ENOENT ? EINVAL : -r);
	else
		fuse_reply_write(req, size);
}

void dutfs_ctl_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ctl_buf *b = (struct ctl_buf *)(uintptr_t)fi->fh;

	if (b) {
		free(b->data);
		free(b);
	}
	fuse_reply_err(req, 0);
}

void dutfs_ctl_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	struct dutfs *fs = dutfs_of(req);
	static const char *const names[] = { ".", "..", "stats.json", "control" };
	static const fuse_ino_t inos[] = { DUTFS_INO_CTLDIR, FUSE_ROOT_ID, DUTFS_INO_STATS,
					   DUTFS_INO_CONTROL };
	char buf[1024];
	size_t used = 0;

	if (ino != DUTFS_INO_CTLDIR) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (off_t i = off < 0 ? 0 : off; i < 4; i++) {
		struct fuse_entry_param e;
		size_t n;

		memset(&e, 0, sizeof(e));
		dutfs_ctl_attr(fs, inos[i] == FUSE_ROOT_ID ? DUTFS_INO_CTLDIR : inos[i], &e.attr);
		if (plus) {
			/* entries "." and ".." carry no lookup (ino 0), the files do */
			if (i >= 2) {
				e.ino = inos[i];
				dutfs_fill_entry_timeouts(&e);
			}
			n = fuse_add_direntry_plus(req, buf + used, size - used, names[i], &e, i + 1);
		} else {
			n = fuse_add_direntry(req, buf + used, size - used, names[i], &e.attr, i + 1);
		}
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}
