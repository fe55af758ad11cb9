/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The virtual control directory MNT/.dutfs (reserved node ids 2..4):
 *   stats.json  one rendered snapshot shared by the opens that come within
 *               CTL_SNAP_MAX_AGE_NS of its rendering (and before the next
 *               control command); each open reads the snapshot it got, so a
 *               reader sees one consistent document (direct_io: no caching).
 *               Mode --stats-mode (default 0400: the mounting user only).
 *   control     write one command per write() (fuse/ctl_cmd.h); only the
 *               mounting user may write; reading returns the status of the
 *               last command, "ok\n" or "error: ...\n"
 *
 * Open control files live in a fixed table of CTL_MAX_OPEN slots (users
 * other than the mounting one get at most CTL_MAX_OPEN_OTHERS of them);
 * one more open fails with EMFILE.  The file handle the kernel keeps is a
 * slot number and the slot's generation, never a pointer: a READ that
 * arrives after the RELEASE of its handle (the kernel abandons the READ of
 * a reader killed by a signal, then releases the file while a worker still
 * holds the READ) finds the generation changed and gets EBADF.  A reader
 * holds its own reference on the snapshot while the reply is sent, so a
 * concurrent RELEASE or a newer rendering cannot free the bytes under it.
 *
 * Lock order: ctl->render_lock, then ctl->lock (rendering itself takes
 * ctl->lock for the "control" member, so it runs with render_lock only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fuse/ctl_cmd.h"
#include "fuse/dutfs.h"
#include "fuse/shaper.h"

/* st_ino values shown for the virtual files: far from any backing inode number */
#define CTL_ST_INO_BASE 0xfffffffffff00000ull

#define CTL_MAX_OPEN 128u
#define CTL_MAX_OPEN_OTHERS 64u
/* A snapshot is shared for this long after its rendering: at most ~20 renderings a second. */
#define CTL_SNAP_MAX_AGE_NS (50ull * 1000 * 1000)

struct ctl_snap {
	unsigned refs;        /* ctl->lock */
	uint64_t rendered_ns;
	uint64_t cmd_gen;     /* ctl->cmd_gen when rendered */
	char *data;
	size_t len;
};

struct ctl_slot {
	uint32_t gen;          /* bumped at every allocation: old handles stop matching */
	bool used;
	bool other;            /* opened by a user other than the mounting one */
	struct ctl_snap *snap; /* stats.json: what this open reads; NULL for control */
};

struct dutfs_ctl {
	const struct dutfs_ctl_actions *act;
	struct timespec mounted;    /* times shown for the virtual nodes */
	mode_t stats_mode;
	pthread_mutex_t render_lock; /* one rendering at a time */
	pthread_mutex_t lock;
	char status[DUTFS_CTL_LABEL_MAX + 512]; /* protected by lock */
	struct ctl_slot slots[CTL_MAX_OPEN];    /* lock */
	unsigned nopen, nopen_others;           /* lock */
	struct ctl_snap *cur;  /* newest snapshot, one reference of its own; lock */
	unsigned nsnaps;       /* snapshots alive (cur and those open files hold); lock */
	uint64_t renders, refused; /* lock */
	uint64_t cmd_gen;      /* bumped by every control command: cur is stale; lock */
	bool warned_full;      /* lock */
};

static const struct {
	const char *name;
	fuse_ino_t ino;
} ctl_files[] = {
	{ "stats.json", DUTFS_INO_STATS },
	{ "control", DUTFS_INO_CONTROL },
};

int dutfs_ctl_new(struct dutfs *fs, const struct dutfs_ctl_actions *act, struct dutfs_ctl **ret)
{
	struct dutfs_ctl *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->act = act;
	clock_gettime(CLOCK_REALTIME, &c->mounted);
	c->stats_mode = fs->cli && fs->cli->stats_mode ? fs->cli->stats_mode : DUTFS_STATS_MODE_DEFAULT;
	pthread_mutex_init(&c->render_lock, NULL);
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->status, sizeof(c->status), "ok\n");
	*ret = c;
	return 0;
}

static void snap_unref_locked(struct dutfs_ctl *c, struct ctl_snap *s)
{
	if (!s || --s->refs)
		return;
	c->nsnaps--;
	free(s->data);
	free(s);
}

void dutfs_ctl_free(struct dutfs_ctl *c)
{
	if (!c)
		return;
	/* the session is over: no request can hold a slot or a snapshot */
	for (unsigned i = 0; i < CTL_MAX_OPEN; i++)
		if (c->slots[i].used)
			snap_unref_locked(c, c->slots[i].snap);
	snap_unref_locked(c, c->cur);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->render_lock);
	free(c);
}

struct json_object *dutfs_ctl_stats_json(struct dutfs_ctl *c)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	pthread_mutex_lock(&c->lock);
	json_object_object_add(o, "open_files", json_object_new_int64(c->nopen));
	json_object_object_add(o, "max_open_files", json_object_new_int64(CTL_MAX_OPEN));
	json_object_object_add(o, "snapshots", json_object_new_int64(c->nsnaps));
	json_object_object_add(o, "renders", json_object_new_int64((int64_t)c->renders));
	json_object_object_add(o, "refused_opens", json_object_new_int64((int64_t)c->refused));
	pthread_mutex_unlock(&c->lock);
	return o;
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
		st->st_mode = S_IFREG | fs->ctl->stats_mode;
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

static bool is_owner(fuse_req_t req)
{
	return fuse_req_ctx(req)->uid == dutfs_of(req)->owner_uid;
}

/*
 * The kernel checks the mode with default_permissions already; this is the
 * same check in the daemon, so that a mount with extra -o options cannot
 * open stats.json to everyone.  Group read is for the owner's primary group.
 */
static bool may_read_stats(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct dutfs *fs = dutfs_of(req);
	mode_t m = fs->ctl->stats_mode;

	if (ctx->uid == 0 || is_owner(req) || (m & S_IROTH))
		return true;
	return (m & S_IRGRP) && ctx->gid == fs->owner_gid;
}

static uint64_t slot_handle(const struct dutfs_ctl *c, unsigned i)
{
	return ((uint64_t)c->slots[i].gen << 32) | (i + 1);
}

/* The slot a handle names, or NULL if it was released (lock held). */
static struct ctl_slot *slot_of_locked(struct dutfs_ctl *c, uint64_t fh)
{
	uint64_t i = (fh & 0xffffffffu);

	if (i == 0 || i > CTL_MAX_OPEN)
		return NULL;
	i--;
	if (!c->slots[i].used || c->slots[i].gen != (uint32_t)(fh >> 32))
		return NULL;
	return &c->slots[i];
}

/* A free slot: its handle, or -EMFILE when the table (or the others' share) is full. */
static int slot_alloc(struct dutfs_ctl *c, bool other, uint64_t *ret_fh)
{
	int r = -EMFILE;
	bool warn = false;

	pthread_mutex_lock(&c->lock);
	if (c->nopen < CTL_MAX_OPEN && (!other || c->nopen_others < CTL_MAX_OPEN_OTHERS)) {
		for (unsigned i = 0; i < CTL_MAX_OPEN; i++) {
			struct ctl_slot *s = &c->slots[i];

			if (s->used)
				continue;
			s->used = true;
			s->other = other;
			s->snap = NULL;
			s->gen++;
			c->nopen++;
			c->nopen_others += other;
			*ret_fh = slot_handle(c, i);
			r = 0;
			break;
		}
	}
	if (r < 0) {
		c->refused++;
		warn = !c->warned_full;
		c->warned_full = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (warn)
		fuse_log(FUSE_LOG_WARNING, "dutfs: too many open files in %s/ (at most %u, %u of them "
			 "by users other than the mounting one); further opens fail with EMFILE until "
			 "some are closed\n", DUTFS_CTL_NAME, CTL_MAX_OPEN, CTL_MAX_OPEN_OTHERS);
	return r;
}

static void slot_release(struct dutfs_ctl *c, uint64_t fh)
{
	struct ctl_slot *s;

	pthread_mutex_lock(&c->lock);
	s = slot_of_locked(c, fh);
	if (s) {
		snap_unref_locked(c, s->snap);
		s->snap = NULL;
		s->used = false;
		c->nopen--;
		c->nopen_others -= s->other;
	}
	pthread_mutex_unlock(&c->lock);
}

static bool snap_fresh_locked(const struct dutfs_ctl *c, uint64_t now_ns)
{
	return c->cur && c->cur->cmd_gen == c->cmd_gen && now_ns - c->cur->rendered_ns < CTL_SNAP_MAX_AGE_NS;
}

/* A reference on a fresh snapshot (the current one, or a new rendering); 0 or -errno. */
static int snap_get(struct dutfs *fs, struct ctl_snap **ret)
{
	struct dutfs_ctl *c = fs->ctl;
	struct ctl_snap *s;
	int r;

	pthread_mutex_lock(&c->lock);
	if (snap_fresh_locked(c, dutfs_now_ns()))
		goto out_share;
	pthread_mutex_unlock(&c->lock);

	pthread_mutex_lock(&c->render_lock);
	pthread_mutex_lock(&c->lock);
	if (snap_fresh_locked(c, dutfs_now_ns())) { /* rendered while we waited */
		pthread_mutex_unlock(&c->render_lock);
		goto out_share;
	}
	pthread_mutex_unlock(&c->lock);
	s = calloc(1, sizeof(*s));
	if (!s) {
		pthread_mutex_unlock(&c->render_lock);
		return -ENOMEM;
	}
	pthread_mutex_lock(&c->lock);
	s->cmd_gen = c->cmd_gen; /* a command during the rendering makes it stale at once */
	pthread_mutex_unlock(&c->lock);
	s->rendered_ns = dutfs_now_ns();
	r = c->act->render_stats(fs, &s->data, &s->len);
	if (r < 0) {
		pthread_mutex_unlock(&c->render_lock);
		free(s);
		return r;
	}
	pthread_mutex_lock(&c->lock);
	s->refs = 1; /* ctl's own */
	c->nsnaps++;
	c->renders++;
	snap_unref_locked(c, c->cur);
	c->cur = s;
	pthread_mutex_unlock(&c->render_lock);
out_share:
	c->cur->refs++;
	*ret = c->cur;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

void dutfs_ctl_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_ctl *c = fs->ctl;
	bool writing = (fi->flags & O_ACCMODE) != O_RDONLY;
	struct ctl_snap *snap = NULL;
	struct ctl_slot *s;
	uint64_t fh = 0;
	int r;

	if (ino == DUTFS_INO_CTLDIR) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if ((writing && (ino == DUTFS_INO_STATS || !is_owner(req))) ||
	    (ino == DUTFS_INO_STATS && !may_read_stats(req))) {
		fuse_reply_err(req, EACCES);
		return;
	}
	r = slot_alloc(c, !is_owner(req) && fuse_req_ctx(req)->uid != 0, &fh);
	if (r == 0 && ino == DUTFS_INO_STATS)
		r = snap_get(fs, &snap);
	if (r < 0) {
		if (r != -EMFILE)
			slot_release(c, fh);
		fuse_reply_err(req, -r);
		return;
	}
	pthread_mutex_lock(&c->lock);
	s = slot_of_locked(c, fh);
	s->snap = snap; /* nobody else knows fh yet: the slot is still ours */
	pthread_mutex_unlock(&c->lock);
	fi->direct_io = 1;
	fi->fh = fh;
	if (fuse_reply_open(req, fi) < 0)
		slot_release(c, fh); /* the kernel did not take the handle (interrupted) */
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
	struct dutfs_ctl *c = fs->ctl;
	char status[sizeof(c->status)];
	struct ctl_snap *snap = NULL;
	struct ctl_slot *s;

	pthread_mutex_lock(&c->lock);
	s = slot_of_locked(c, fi->fh);
	if (s && ino == DUTFS_INO_STATS) {
		snap = s->snap;
		if (snap)
			snap->refs++; /* the reply below reads it without the lock */
	} else if (s) {
		memcpy(status, c->status, sizeof(status));
	}
	pthread_mutex_unlock(&c->lock);
	if (!s || (ino == DUTFS_INO_STATS && !snap)) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (snap) {
		reply_slice(req, snap->data, snap->len, size, off);
		pthread_mutex_lock(&c->lock);
		snap_unref_locked(c, snap);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	reply_slice(req, status, strlen(status), size, off);
}

static int run_command(struct dutfs *fs, const struct dutfs_ctl_cmd *c, struct dut_error *err)
{
	int r = 0;

	switch (c->verb) {
	case DUTFS_CTL_MARK:
		r = fs->ctl->act->mark(fs, c->label);
		if (r < 0)
			dut_error_set(err, "mark: could not queue the marker: %s", strerror(-r));
		break;
	case DUTFS_CTL_TRACE_ON:
	case DUTFS_CTL_TRACE_OFF:
		r = fs->ctl->act->set_tracing(fs, c->verb == DUTFS_CTL_TRACE_ON);
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

	if (ino != DUTFS_INO_CONTROL || !is_owner(req)) {
		fuse_reply_err(req, EACCES);
		return;
	}
	r = dutfs_ctl_parse(buf, size, &cmd, &err);
	if (r == 0)
		r = run_command(fs, &cmd, &err);
	pthread_mutex_lock(&fs->ctl->lock);
	fs->ctl->cmd_gen++; /* the next stats.json open renders anew */
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
	slot_release(dutfs_of(req)->ctl, fi->fh);
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
