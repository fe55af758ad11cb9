/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs internals shared by main.c, fs.c, ops_*.c, tracer.c and ctl.c.
 *
 * Inodes: every backing object the kernel knows is a struct dutfs_inode
 * holding an O_PATH|O_NOFOLLOW fd; its address is the FUSE node id.  All
 * operations use *at() calls on those fds with single path components, so no
 * request can name anything outside the backing directory and no symlink is
 * ever followed by the daemon.  The control directory uses the reserved node
 * ids 2..4 (no heap address is that small).
 *
 * Lock order: fs->itab_lock, then nothing else (path building and inode
 * lifetime both live under it).
 */
#ifndef DUTFS_H
#define DUTFS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "fuse/cli.h"
#include "fuse/layer.h"
#include "fuse/paths.h"

#define DUTFS_INO_CTLDIR  2
#define DUTFS_INO_STATS   3
#define DUTFS_INO_CONTROL 4
#define DUTFS_CTL_NAME ".dutfs"

/* Cache lifetimes: everything changes through this kernel (see README). */
#define DUTFS_TIMEOUT_S 86400.0

struct dutfs_inode {
	struct dutfs_pnode pn;     /* protected by fs->itab_lock */
	int fd;                    /* O_PATH | O_NOFOLLOW */
	dev_t dev;
	ino_t ino;
	mode_t type;               /* S_IFMT bits */
	uint64_t refs;             /* kernel lookups + children naming it parent; itab_lock */
	struct dutfs_inode *hnext; /* hash chain; itab_lock */
	atomic_uint file_id;       /* trace/stats id, 0 until first open */
	atomic_bool kill_privs;    /* mode at the last stat had S_ISUID or S_ISGID|S_IXGRP */
};

struct dutfs_tracer;
struct dutfs_ctl;
struct dutfs_shaper;
struct shape_sched;

/* FUSE requests counted for stats.json ("requests"); names in fs.c. */
enum dutfs_req {
	DUTFS_REQ_LOOKUP, DUTFS_REQ_FORGET, DUTFS_REQ_GETATTR, DUTFS_REQ_SETATTR,
	DUTFS_REQ_READLINK, DUTFS_REQ_MKNOD, DUTFS_REQ_MKDIR, DUTFS_REQ_SYMLINK, DUTFS_REQ_LINK,
	DUTFS_REQ_UNLINK, DUTFS_REQ_RMDIR, DUTFS_REQ_RENAME, DUTFS_REQ_STATFS, DUTFS_REQ_OPEN,
	DUTFS_REQ_CREATE, DUTFS_REQ_READ, DUTFS_REQ_WRITE, DUTFS_REQ_FLUSH, DUTFS_REQ_RELEASE,
	DUTFS_REQ_FSYNC, DUTFS_REQ_FALLOCATE, DUTFS_REQ_OPENDIR, DUTFS_REQ_READDIR,
	DUTFS_REQ_READDIRPLUS, DUTFS_REQ_RELEASEDIR, DUTFS_REQ_FSYNCDIR,
	DUTFS_REQ_READ_PAGE_FILL, /* of the READs: syscall view, no syscall behind it (read_fill.c) */
	DUTFS_REQ_WRITE_SPLICED,  /* of the WRITEs: data received by splice (loop.c) */
	DUTFS_REQ_KINDS
};
extern const char *const dutfs_req_names[DUTFS_REQ_KINDS];

#define DUTFS_LAST_MARK_MAX 256

/*
 * Buffered writes to one backing file are serialised by the backing file
 * system's inode lock anyway (ext4 takes it exclusively).  Several workers
 * writing back one file then spin on that lock in the kernel (optimistic
 * rwsem spinning) while its owner copies 1 MiB: a quarter of the daemon's
 * CPU during a data load.  A user-space mutex per file (striped by inode)
 * makes them sleep instead.  See ops_file.c, backing_pwrite().
 */
#define DUTFS_WRITE_LOCKS 64

struct dutfs {
	const struct dutfs_cli *cli;
	char *backing;             /* realpath */
	char *mountpoint;          /* realpath */
	enum dutfs_view view;
	uid_t owner_uid;           /* may write .dutfs/control */
	gid_t owner_gid;
	bool switch_creds;         /* root: create and open as the caller (dutfs_creds_enter) */
	gid_t root_gid;            /* the daemon's own egid and groups, restored after */
	gid_t *root_groups;
	size_t root_ngroups;
	struct fuse_session *se;
	struct dutfs_transport *transport; /* /dev/fuse or io_uring (uring.h); NULL before serve */

	struct dutfs_inode root;
	pthread_mutex_t itab_lock;
	struct dutfs_inode **htab; /* itab_lock */
	size_t hsize, hcount;      /* itab_lock */

	struct dutfs_tracer *tracer;
	struct dutfs_ctl *ctl;
	struct dutfs_shaper *shaper; /* NULL without --shape */
	struct shape_sched *sched;   /* late replies; NULL without --shape */
	struct dutfs_layer layers[DUTFS_MAX_LAYERS];
	unsigned nlayers;
	/* requests served (relaxed atomics: a few ns against a ~10 us round trip) */
	_Atomic uint64_t nreq[DUTFS_REQ_KINDS];
	/*
	 * Generation of regular-file entries (device view): a crash bumps it
	 * so the kernel makes fresh inodes, whose size comes from the backing
	 * file (with the writeback cache the kernel never re-reads the size of
	 * an inode it has).
	 */
	_Atomic uint64_t file_generation;
	pthread_mutex_t write_locks[DUTFS_WRITE_LOCKS]; /* leaves: taken with no other lock held */
	_Atomic bool no_splice_write; /* the backing refused splice once: write through memory */
	/*
	 * Device view: regular files' backing fds are O_DIRECT (ops_file.c);
	 * false when the backing file system refused O_DIRECT at mount time
	 * (dutfs_init_fs: every read and write then goes buffered, flagged).
	 */
	bool backing_direct;
	_Atomic bool no_direct_warned; /* the per-file O_DIRECT refusal was logged */
	/*
	 * Splice read only while large writes arrive (loop.c): conn is
	 * libfuse's (valid for the session), splice_on mirrors its
	 * FUSE_CAP_SPLICE_READ bit, splice_until_ns is when it goes off.
	 */
	struct fuse_conn_info *conn;
	bool splice_capable;           /* device view, and the kernel can splice */
	_Atomic bool splice_on;
	_Atomic uint64_t splice_until_ns;
	_Atomic uint64_t splice_reqs;  /* requests received since the last large write */
	/*
	 * The largest WRITE the kernel may send (INIT's max_write): 1020 KiB
	 * in the device view, 1 MiB in the syscall view; 8 MiB - 4 KiB where
	 * main.c could raise the kernel's page limit (dutfs_big_requests).
	 * The session loop's receive buffers and pipes hold one such request.
	 */
	uint32_t max_write;
};

static inline struct dutfs *dutfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static inline uint64_t dutfs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline bool dutfs_is_ctl_ino(fuse_ino_t ino)
{
	return ino >= DUTFS_INO_CTLDIR && ino <= DUTFS_INO_CONTROL;
}

/* fs.c: the lowlevel ops table, setup and teardown */
extern const struct fuse_lowlevel_ops dutfs_ll_ops;
int dutfs_init_fs(struct dutfs *fs, const struct dutfs_cli *cli, const char *backing,
		  const char *mountpoint);
void dutfs_fini_fs(struct dutfs *fs);
struct dutfs_shaper_opts;
struct shape_rules;
struct shape_classifier;
/* The shaper layer and the timer thread (--shape); takes ownership of rules and cls. */
int dutfs_init_shaping(struct dutfs *fs, const struct dutfs_shaper_opts *o, struct shape_rules *rules,
		       struct shape_classifier *cls);

/* inode.c: the inode table (calls nothing else of dutfs's) */
int dutfs_itab_init(struct dutfs *fs);
void dutfs_itab_fini(struct dutfs *fs);
struct dutfs_inode *dutfs_inode(struct dutfs *fs, fuse_ino_t ino);
int dutfs_do_lookup(struct dutfs *fs, struct dutfs_inode *dir, const char *name,
		    struct fuse_entry_param *e);
void dutfs_inode_unref(struct dutfs *fs, struct dutfs_inode *in, uint64_t n);
/* One more reference (keeps in and its fd alive until dutfs_inode_unref). */
void dutfs_inode_ref(struct dutfs *fs, struct dutfs_inode *in);
/* Every regular file the kernel knows: node id, parent node id and name (name may be NULL). */
struct dutfs_file_ref { fuse_ino_t ino, parent; char *name; };
int dutfs_inode_list_files(struct dutfs *fs, struct dutfs_file_ref **ret, size_t *ret_n);
void dutfs_file_refs_free(struct dutfs_file_ref *v, size_t n);
/* path relative to the mount root into buf (itab_lock taken inside) */
int dutfs_inode_path(struct dutfs *fs, struct dutfs_inode *in, char *buf, size_t size);
void dutfs_fill_entry_timeouts(struct fuse_entry_param *e);
/* with fs->itab_lock held: the inode of (dev, ino) or NULL; drop n references;
 * name in parent/name (rename) */
struct dutfs_inode *dutfs_itab_find_locked(struct dutfs *fs, dev_t dev, ino_t ino);
void dutfs_inode_unref_locked(struct dutfs *fs, struct dutfs_inode *in, uint64_t n);
void dutfs_inode_repath_locked(struct dutfs *fs, struct dutfs_inode *in, struct dutfs_inode *parent,
			       const char *name);
/* ops_inode.c: name and attribute ops */
void dutfs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void dutfs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void dutfs_op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void dutfs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		      struct fuse_file_info *fi);
void dutfs_op_readlink(fuse_req_t req, fuse_ino_t ino);
void dutfs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void dutfs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void dutfs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void dutfs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void dutfs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void dutfs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void dutfs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		     const char *newname, unsigned int flags);
void dutfs_op_statfs(fuse_req_t req, fuse_ino_t ino);

/*
 * ops_inode.c: run a backing call as the request's caller (fsuid, fsgid,
 * supplementary groups; this thread only).  Creations and opens use it.
 * enter returns 0 or -errno (nothing switched on error); leave restores
 * the daemon's credentials.
 */
struct dutfs_creds { bool switched, groups; };
int dutfs_creds_init(struct dutfs *fs);
int dutfs_creds_enter(struct dutfs *fs, fuse_req_t req, struct dutfs_creds *c);
void dutfs_creds_leave(struct dutfs *fs, struct dutfs_creds *c);
/*
 * Remember whether a regular file's mode has bits a write by another user
 * must kill (S_ISUID, or S_ISGID with S_IXGRP): in->kill_privs.
 */
static inline void dutfs_note_mode(struct dutfs_inode *in, mode_t mode)
{
	bool k = S_ISREG(mode) && ((mode & S_ISUID) || (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP));

	atomic_store_explicit(&in->kill_privs, k, memory_order_relaxed);
}
/* Kill those bits on the backing file (a write by a user other than root); 0 or -errno. */
int dutfs_kill_privs(struct dutfs *fs, struct dutfs_inode *in, fuse_ino_t ino, int fd);

/* loop.c: the session loop; splice read follows the large writes (see there) */
#define DUTFS_SPLICE_MIN_WRITE (64u << 10)
#define DUTFS_SPLICE_HOLD_NS 1000000000ull
#define DUTFS_SPLICE_OFF_AFTER 256u
int dutfs_session_loop(struct dutfs *fs, unsigned nthreads);
/* The largest request (header page and fs->max_write data) a worker receives. */
static inline size_t dutfs_recv_size(const struct dutfs *fs)
{
	return (size_t)fs->max_write + 4096;
}
/* A WRITE of size bytes arrived: a large one keeps splice read on for a while. */
void dutfs_splice_note_write(struct dutfs *fs, size_t size);

/* ops_file.c */
void dutfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		     struct fuse_file_info *fi);
void dutfs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
/* read_fill.c: syscall view, a page-cache fill (a READ with no lock owner): served, not traced */
void dutfs_op_read_fill(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi);
void dutfs_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi);
/* WRITE with the data possibly still in libfuse's pipe (splice read, device view) */
void dutfs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv, off_t off,
			struct fuse_file_info *fi);
void dutfs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void dutfs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			struct fuse_file_info *fi);

/* ops_dir.c */
void dutfs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi);
void dutfs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi);
void dutfs_op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

/* tracer.c: ids, records, stats; the tracer is layer 0 */
struct dutfs_tracer_opts {
	const char *trace_path;    /* NULL: no trace file */
	enum dutfs_view view;
	uint64_t trace_max_bytes;  /* --trace-max (0: unbounded), --trace-segments */
	unsigned trace_segments;
};
int dutfs_tracer_new(const struct dutfs_tracer_opts *o, struct dutfs_tracer **ret);
/* Close the trace (footer); returns the writer's first error.  Counts for the exit message. */
int dutfs_tracer_close(struct dutfs_tracer *t, uint64_t *ret_written, uint64_t *ret_dropped);
void dutfs_tracer_free(struct dutfs_tracer *t);
extern const struct dutfs_layer_ops dutfs_tracer_layer;
int dutfs_tracer_info(struct dutfs_tracer *t, const char *key, const char *value);
/* Give in a file id (registering its path) if it has none yet. */
uint32_t dutfs_tracer_file_id(struct dutfs *fs, struct dutfs_inode *in);
/* After a rename of in: new id for the new name, DUT_OP_RENAME record. */
void dutfs_tracer_renamed(struct dutfs *fs, struct dutfs_inode *in, uint32_t pid);
int dutfs_tracer_set_enabled(struct dutfs_tracer *t, bool on);
int dutfs_tracer_mark(struct dutfs_tracer *t, const char *label);
int dutfs_tracer_render_stats(struct dutfs *fs, char **ret_json, size_t *ret_len);
/* Per-thread scratch buffer, 4 KiB aligned, >= size bytes (NULL on ENOMEM). */
void *dutfs_thread_buf(struct dutfs *fs, size_t size);
#define DUTFS_BUF_MAX (1u << 20)

/* Layer plumbing (tracer.c). */
int dutfs_io_begin(struct dutfs *fs, fuse_req_t req, struct dutfs_io *io, uint16_t op,
		   struct dutfs_inode *in, uint64_t offset, uint32_t len, uint16_t flags);
void dutfs_io_end(struct dutfs *fs, struct dutfs_io *io, int32_t result);
/* dutfs_io_end with the backing call's end time measured by the caller */
void dutfs_io_end_at(struct dutfs *fs, struct dutfs_io *io, int32_t result, uint64_t end_ns);
/* The layers' ->backing_done, once (dutfs_io_end_at calls it if the op did not). */
void dutfs_io_backing_done(struct dutfs *fs, struct dutfs_io *io);

/*
 * reply_late.c: end io and reply, now or (io->reply_ns ahead: a shaping
 * delay) from the timer thread.  For DUTFS_REPLY_BUF, data holds the
 * result bytes of a successful read; they are copied when the reply waits.
 */
enum dutfs_reply_kind { DUTFS_REPLY_ERR, DUTFS_REPLY_BUF, DUTFS_REPLY_WRITE };
void dutfs_io_reply(struct dutfs *fs, fuse_req_t req, struct dutfs_io *io, int32_t result,
		    enum dutfs_reply_kind kind, const void *data);

/* ctl.c: the virtual .dutfs directory */
/*
 * What the control files do to the rest of dutfs: render stats.json, put a
 * marker in the trace, turn tracing on or off.  fs.c wires the tracer in, so
 * that ctl.c (which the ops call) does not call the tracer (which calls
 * ctl.c for stats.json's "control" member): no cycle (issue #21).
 */
struct dutfs_ctl_actions {
	int (*render_stats)(struct dutfs *fs, char **ret_json, size_t *ret_len);
	int (*mark)(struct dutfs *fs, const char *label);
	int (*set_tracing)(struct dutfs *fs, bool on);  /* -ENOENT: no trace file */
};
int dutfs_ctl_new(struct dutfs *fs, const struct dutfs_ctl_actions *act, struct dutfs_ctl **ret);
void dutfs_ctl_free(struct dutfs_ctl *c);
struct json_object;
/* stats.json's "control" member: open control files, live snapshots, renderings */
struct json_object *dutfs_ctl_stats_json(struct dutfs_ctl *c);
void dutfs_ctl_attr(struct dutfs *fs, fuse_ino_t ino, struct stat *st);
fuse_ino_t dutfs_ctl_lookup_name(fuse_ino_t parent, const char *name);
void dutfs_ctl_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void dutfs_ctl_getattr(fuse_req_t req, fuse_ino_t ino);
void dutfs_ctl_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set);
void dutfs_ctl_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_ctl_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void dutfs_ctl_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi);
void dutfs_ctl_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dutfs_ctl_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus);

#endif
