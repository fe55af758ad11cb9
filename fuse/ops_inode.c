/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs's name and attribute operations (lookup, getattr, setattr, link,
 * rename, ...), and the per-request credentials.  The inode table they work
 * on is inode.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/fh.h"
#include "lib/trace.h"


static bool is_ctl_name(fuse_ino_t parent, const char *name)
{
	return parent == FUSE_ROOT_ID && !strcmp(name, DUTFS_CTL_NAME);
}

void dutfs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct dutfs *fs = dutfs_of(req);
	struct fuse_entry_param e;
	int r;

	if (dutfs_is_ctl_ino(parent) || is_ctl_name(parent, name)) {
		dutfs_ctl_lookup(req, parent, name);
		return;
	}
	if (!dutfs_name_ok(name)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	r = dutfs_do_lookup(fs, dutfs_inode(fs, parent), name, &e);
	if (r == -ENOENT) {
		/* negative entry: cached by the kernel until a create through it */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = DUTFS_TIMEOUT_S;
		fuse_reply_entry(req, &e);
		return;
	}
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_entry(req, &e);
}

void dutfs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct dutfs *fs = dutfs_of(req);

	if (!dutfs_is_ctl_ino(ino) && ino != FUSE_ROOT_ID)
		dutfs_inode_unref(fs, dutfs_inode(fs, ino), nlookup);
	fuse_reply_none(req);
}

void dutfs_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct dutfs *fs = dutfs_of(req);

	pthread_mutex_lock(&fs->itab_lock);
	for (size_t i = 0; i < count; i++) {
		fuse_ino_t ino = forgets[i].ino;

		if (!dutfs_is_ctl_ino(ino) && ino != FUSE_ROOT_ID)
			dutfs_inode_unref_locked(fs, dutfs_inode(fs, ino), forgets[i].nlookup);
	}
	pthread_mutex_unlock(&fs->itab_lock);
	fuse_reply_none(req);
}

static int inode_stat(struct dutfs_inode *in, struct stat *st)
{
	return fstatat(in->fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

void dutfs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct stat st;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_getattr(req, ino);
		return;
	}
	r = inode_stat(dutfs_inode(fs, ino), &st);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	dutfs_note_mode(dutfs_inode(fs, ino), st.st_mode);
	fuse_reply_attr(req, &st, DUTFS_TIMEOUT_S);
}

static void proc_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

static int set_times(struct dutfs_inode *in, const struct stat *attr, int to_set,
		     struct fuse_file_info *fi)
{
	struct timespec tv[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };
	char pp[64];

	if (to_set & FUSE_SET_ATTR_ATIME_NOW)
		tv[0].tv_nsec = UTIME_NOW;
	else if (to_set & FUSE_SET_ATTR_ATIME)
		tv[0] = attr->st_atim;
	if (to_set & FUSE_SET_ATTR_MTIME_NOW)
		tv[1].tv_nsec = UTIME_NOW;
	else if (to_set & FUSE_SET_ATTR_MTIME)
		tv[1] = attr->st_mtim;
	if (fi)
		return futimens(dutfs_fh_fd(fi), tv) < 0 ? -errno : 0;
	if (utimensat(in->fd, "", tv, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EINVAL || in->type == S_IFLNK)
		return -errno;
	proc_path(pp, sizeof(pp), in->fd); /* kernels without AT_EMPTY_PATH in utimensat */
	return utimensat(AT_FDCWD, pp, tv, 0) < 0 ? -errno : 0;
}

static int set_size(struct dutfs *fs, fuse_req_t req, struct dutfs_inode *in, off_t size,
		    struct fuse_file_info *fi)
{
	struct dutfs_io io;
	char pp[64];
	int r;

	r = dutfs_io_begin(fs, req, &io, DUT_OP_TRUNCATE, in, (uint64_t)size, 0, 0);
	if (r == 0) {
		if (fi) {
			r = ftruncate(dutfs_fh_fd(fi), size) < 0 ? -errno : 0;
		} else {
			proc_path(pp, sizeof(pp), in->fd);
			r = truncate(pp, size) < 0 ? -errno : 0;
		}
	}
	dutfs_io_end(fs, &io, r);
	return io.result;
}

void dutfs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		      struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *in;
	struct stat st;
	char pp[64];
	int r = 0;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_setattr(req, ino, attr, to_set);
		return;
	}
	in = dutfs_inode(fs, ino);
	if (to_set & FUSE_SET_ATTR_MODE) {
		if (fi) {
			r = fchmod(dutfs_fh_fd(fi), attr->st_mode) < 0 ? -errno : 0;
		} else {
			proc_path(pp, sizeof(pp), in->fd);
			r = chmod(pp, attr->st_mode) < 0 ? -errno : 0;
		}
	}
	if (!r && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
		uid_t u = (to_set & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t g = (to_set & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

		r = fchownat(in->fd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	}
	if (!r && (to_set & FUSE_SET_ATTR_SIZE))
		r = set_size(fs, req, in, attr->st_size, fi);
	if (!r && (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
			     FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW)))
		r = set_times(in, attr, to_set, fi);
	if (!r)
		r = inode_stat(in, &st);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	dutfs_note_mode(in, st.st_mode);
	fuse_reply_attr(req, &st, DUTFS_TIMEOUT_S);
}

void dutfs_op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct dutfs *fs = dutfs_of(req);
	char buf[PATH_MAX + 1];
	ssize_t n;

	if (dutfs_is_ctl_ino(ino)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	n = readlinkat(dutfs_inode(fs, ino)->fd, "", buf, sizeof(buf));
	if (n < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	if ((size_t)n >= sizeof(buf)) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	buf[n] = '\0';
	fuse_reply_readlink(req, buf);
}

/*
 * Run the calling thread as the request's caller: fsuid, fsgid and the
 * caller's supplementary groups (issue #27).  All three are per-thread
 * here: setfsuid/setfsgid are plain syscalls, and setgroups is called
 * through syscall() because glibc's setgroups() changes every thread of the
 * process.  A non-zero fsuid also drops CAP_DAC_OVERRIDE, CAP_FOWNER and
 * CAP_FSETID from the thread, so the backing file system checks
 * permissions, and kills S_ISUID/S_ISGID on truncation, as it would for the
 * caller.  Groups come from /proc (fuse_req_getgroups); a caller whose
 * groups cannot be read (it has exited) gets none: less access, never more.
 */
#define CREDS_GROUPS_STACK 64

int dutfs_creds_init(struct dutfs *fs)
{
	int n;

	fs->switch_creds = geteuid() == 0;
	if (!fs->switch_creds)
		return 0;
	n = getgroups(0, NULL);
	if (n < 0)
		return -errno;
	fs->root_groups = calloc((size_t)n + 1, sizeof(gid_t));
	if (!fs->root_groups)
		return -ENOMEM;
	n = getgroups(n, fs->root_groups);
	if (n < 0)
		return -errno;
	fs->root_ngroups = (size_t)n;
	fs->root_gid = getegid();
	return 0;
}

static long set_thread_groups(size_t n, const gid_t *list)
{
	return syscall(SYS_setgroups, n, list);
}

int dutfs_creds_enter(struct dutfs *fs, fuse_req_t req, struct dutfs_creds *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t stack[CREDS_GROUPS_STACK], *groups = stack;
	int n = 0;

	c->switched = false;
	c->groups = false;
	if (!fs->switch_creds || (ctx->uid == 0 && ctx->gid == 0))
		return 0;
	if (ctx->uid != 0) {
		/* root keeps its capabilities: its groups would not change any check */
		n = fuse_req_getgroups(req, CREDS_GROUPS_STACK, stack);
		if (n > CREDS_GROUPS_STACK) {
			int want = n;

			groups = calloc((size_t)want, sizeof(gid_t));
			if (!groups)
				return -ENOMEM;
			n = fuse_req_getgroups(req, want, groups);
			if (n > want) /* grew between the two reads: keep what fits */
				n = want;
		}
		if (n < 0)
			n = 0;
		if (set_thread_groups((size_t)n, groups) < 0) {
			int r = -errno;

			if (groups != stack)
				free(groups);
			return r;
		}
		if (groups != stack)
			free(groups);
		c->groups = true;
	}
	setfsgid(ctx->gid);
	if (ctx->uid != 0)
		setfsuid(ctx->uid);
	c->switched = true;
	return 0;
}

void dutfs_creds_leave(struct dutfs *fs, struct dutfs_creds *c)
{
	if (!c->switched)
		return;
	setfsuid(0);
	setfsgid(fs->root_gid);
	if (c->groups && set_thread_groups(fs->root_ngroups, fs->root_groups) < 0)
		fuse_log(FUSE_LOG_ERR, "dutfs: cannot restore the daemon's groups on a worker: %s\n",
			 strerror(errno));
	c->switched = false;
}

int dutfs_kill_privs(struct dutfs *fs, struct dutfs_inode *in, fuse_ino_t ino, int fd)
{
	struct stat st;
	mode_t m;

	if (fstat(fd, &st) < 0)
		return -errno;
	m = st.st_mode & 07777;
	m &= ~(mode_t)S_ISUID;
	if ((m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		m &= ~(mode_t)S_ISGID;
	if (m != (st.st_mode & 07777)) {
		if (fchmod(fd, m) < 0)
			return -errno;
		/* a direct_io write does not refresh the kernel's cached mode: drop it */
		if (fs->se)
			fuse_lowlevel_notify_inval_inode(fs->se, ino, -1, 0);
	}
	dutfs_note_mode(in, (st.st_mode & S_IFMT) | m);
	return 0;
}

/* Check a name that a creating op will make; 0 or positive errno. */
static int creat_name_err(fuse_ino_t parent, const char *name)
{
	if (dutfs_is_ctl_ino(parent))
		return EPERM;
	if (is_ctl_name(parent, name))
		return EEXIST;
	return dutfs_name_ok(name) ? 0 : EINVAL;
}

enum mk_kind { MK_NOD, MK_DIR, MK_SYMLINK };

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name, enum mk_kind kind,
		      mode_t mode, dev_t rdev, const char *link)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *dir;
	struct fuse_entry_param e;
	struct dutfs_creds cr;
	int r = creat_name_err(parent, name);

	if (r) {
		fuse_reply_err(req, r);
		return;
	}
	dir = dutfs_inode(fs, parent);
	r = dutfs_creds_enter(fs, req, &cr);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	if (kind == MK_DIR)
		r = mkdirat(dir->fd, name, mode);
	else if (kind == MK_SYMLINK)
		r = symlinkat(link, dir->fd, name);
	else
		r = mknodat(dir->fd, name, mode, rdev);
	r = r < 0 ? -errno : 0;
	dutfs_creds_leave(fs, &cr);
	if (!r)
		r = dutfs_do_lookup(fs, dir, name, &e);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_entry(req, &e);
}

void dutfs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	make_node(req, parent, name, MK_NOD, mode, rdev, NULL);
}

void dutfs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	make_node(req, parent, name, MK_DIR, mode, 0, NULL);
}

void dutfs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	make_node(req, parent, name, MK_SYMLINK, 0, 0, link);
}

void dutfs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *in, *dir;
	struct fuse_entry_param e;
	struct dutfs_creds cr;
	char pp[64];
	int r = creat_name_err(newparent, newname);

	if (!r && dutfs_is_ctl_ino(ino))
		r = EPERM;
	if (r) {
		fuse_reply_err(req, r);
		return;
	}
	in = dutfs_inode(fs, ino);
	dir = dutfs_inode(fs, newparent);
	r = dutfs_creds_enter(fs, req, &cr);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = linkat(in->fd, "", dir->fd, newname, AT_EMPTY_PATH);
	if (r < 0 && errno == ENOENT) {
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH: go through /proc */
		proc_path(pp, sizeof(pp), in->fd);
		r = linkat(AT_FDCWD, pp, dir->fd, newname, AT_SYMLINK_FOLLOW);
	}
	r = r < 0 ? -errno : 0;
	dutfs_creds_leave(fs, &cr);
	if (!r)
		r = dutfs_do_lookup(fs, dir, newname, &e);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_entry(req, &e);
}

/* The known inode that (dir, name) names, with a reference, or NULL. */
static struct dutfs_inode *find_child(struct dutfs *fs, struct dutfs_inode *dir, const char *name)
{
	struct dutfs_inode *in;
	struct stat st;

	if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	pthread_mutex_lock(&fs->itab_lock);
	in = dutfs_itab_find_locked(fs, st.st_dev, st.st_ino);
	if (in)
		in->refs++;
	pthread_mutex_unlock(&fs->itab_lock);
	return in;
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name, int flags)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *dir, *victim = NULL;
	struct dutfs_io io;
	int r = creat_name_err(parent, name);

	if (r == EEXIST)
		r = EPERM;
	if (r) {
		fuse_reply_err(req, r);
		return;
	}
	dir = dutfs_inode(fs, parent);
	if (!flags)
		victim = find_child(fs, dir, name);
	if (victim && atomic_load_explicit(&victim->file_id, memory_order_relaxed)) {
		r = dutfs_io_begin(fs, req, &io, DUT_OP_UNLINK, victim, 0, 0, 0);
		if (!r)
			r = unlinkat(dir->fd, name, flags) < 0 ? -errno : 0;
		dutfs_io_end(fs, &io, r);
		r = io.result;
	} else {
		r = unlinkat(dir->fd, name, flags) < 0 ? -errno : 0;
	}
	if (victim)
		dutfs_inode_unref(fs, victim, 1);
	fuse_reply_err(req, -r);
}

void dutfs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, 0);
}

void dutfs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, AT_REMOVEDIR);
}

/*
 * The known inodes below directory dir that have a trace id, each with a
 * reference (free the array, unref each).  A renamed directory moves them:
 * their file-table entries must be re-registered under the new path.  Walks
 * the whole inode table: directory renames are rare (CREATE DATABASE's
 * template copy, ALTER ... SET TABLESPACE), file I/O is not.
 */
static int traced_below(struct dutfs *fs, struct dutfs_inode *dir, struct dutfs_inode ***ret,
			size_t *ret_n)
{
	struct dutfs_inode **v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	pthread_mutex_lock(&fs->itab_lock);
	for (size_t i = 0; i < fs->hsize && !r; i++) {
		for (struct dutfs_inode *p = fs->htab[i]; p; p = p->hnext) {
			if (!atomic_load_explicit(&p->file_id, memory_order_relaxed) ||
			    !dutfs_pnode_below(&p->pn, &dir->pn))
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 16;
				struct dutfs_inode **nv = realloc(v, nc * sizeof(*v));

				if (!nv) {
					r = -ENOMEM;
					break;
				}
				v = nv;
				cap = nc;
			}
			p->refs++;
			v[n++] = p;
		}
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			dutfs_inode_unref_locked(fs, v[i], 1);
		free(v);
		v = NULL;
		n = 0;
	}
	pthread_mutex_unlock(&fs->itab_lock);
	*ret = v;
	*ret_n = n;
	return r;
}

/* After a rename: new file ids for in (and, for a directory, the traced files below it). */
static void renamed(struct dutfs *fs, struct dutfs_inode *in, uint32_t pid)
{
	struct dutfs_inode **below;
	size_t n;

	dutfs_tracer_renamed(fs, in, pid);
	if (in->type != S_IFDIR)
		return;
	if (traced_below(fs, in, &below, &n) < 0) {
		fuse_log(FUSE_LOG_ERR, "dutfs: out of memory: files below a renamed directory keep "
			 "their old path in the trace\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		dutfs_tracer_renamed(fs, below[i], pid);
		dutfs_inode_unref(fs, below[i], 1);
	}
	free(below);
}

void dutfs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		     const char *newname, unsigned int flags)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *od, *nd, *moved, *other = NULL;
	struct dutfs_io io;
	bool traced_victim = false;
	uint32_t pid = (uint32_t)fuse_req_ctx(req)->pid;
	int r = creat_name_err(parent, name);

	if (!r)
		r = creat_name_err(newparent, newname);
	if (r) {
		fuse_reply_err(req, r == EEXIST ? EPERM : r);
		return;
	}
	od = dutfs_inode(fs, parent);
	nd = dutfs_inode(fs, newparent);
	moved = find_child(fs, od, name);
	/* RENAME_EXCHANGE swaps with it; otherwise it is the victim that the rename unlinks */
	if (!(flags & RENAME_NOREPLACE))
		other = find_child(fs, nd, newname);
	if (other == moved && other) { /* two links of one inode: POSIX makes this a no-op */
		dutfs_inode_unref(fs, other, 1);
		other = NULL;
	}
	if (other && !(flags & RENAME_EXCHANGE) &&
	    atomic_load_explicit(&other->file_id, memory_order_relaxed)) {
		/* the overwritten file disappears: trace it as an UNLINK done by this rename */
		traced_victim = true;
		r = dutfs_io_begin(fs, req, &io, DUT_OP_UNLINK, other, 0, 0, 0);
	}
	if (!r)
		r = renameat2(od->fd, name, nd->fd, newname, flags) < 0 ? -errno : 0;
	if (traced_victim) {
		dutfs_io_end(fs, &io, r);
		r = io.result;
	}
	if (!r) {
		pthread_mutex_lock(&fs->itab_lock);
		if (moved)
			dutfs_inode_repath_locked(fs, moved, nd, newname);
		if (other && (flags & RENAME_EXCHANGE))
			dutfs_inode_repath_locked(fs, other, od, name);
		pthread_mutex_unlock(&fs->itab_lock);
		if (moved)
			renamed(fs, moved, pid);
		if (other && (flags & RENAME_EXCHANGE))
			renamed(fs, other, pid);
	}
	if (moved)
		dutfs_inode_unref(fs, moved, 1);
	if (other)
		dutfs_inode_unref(fs, other, 1);
	fuse_reply_err(req, -r);
}

void dutfs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct dutfs *fs = dutfs_of(req);
	struct statvfs sv;

	if (fstatvfs(fs->root.fd, &sv) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}
