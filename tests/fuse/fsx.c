/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsx: a seeded random file-system exerciser.
 *
 *     fsx [options] TESTDIR REFDIR
 *     fsx --compare DIR_A DIR_B
 *
 * Runs the same sequence of operations (write, read, truncate, fallocate,
 * punch hole, rename, link, unlink, fsync, close/reopen, mmap write and mmap
 * read) on a small set of files in TESTDIR (the file system under test) and
 * in REFDIR (a native directory), and keeps an in-memory model of what every
 * file must contain.  Every read is checked against the model and against
 * REFDIR; every op's result (bytes or errno) must be the same in both
 * directories; sizes and link counts are checked after each op, and full
 * contents plus the directory listing every --check-every ops and at the
 * end.  A mismatch between REFDIR and the model is a bug in fsx (exit 99);
 * a mismatch between TESTDIR and the model is a bug in the file system
 * (exit 1), reported with the op number, the seed, the last ops and a
 * replay command.
 *
 * --view syscall: the file system serves files with direct_io, where the
 * kernel refuses shared mmap.  The mmap ops then check that a shared
 * writable mapping fails with an error (and does not crash or change the
 * file), and that private mappings (read-only, and copy-on-write) work and
 * show the file's contents.
 *
 * --compare: after unmounting, compare two trees (regular files: names,
 * sizes, contents), e.g. the backing directory against REFDIR.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_NAMES 32
#define RING 24
#define EXIT_MISMATCH 1
#define EXIT_HARNESS 99

enum view { VIEW_DEVICE, VIEW_SYSCALL };

enum op {
	OP_WRITE, OP_READ, OP_TRUNCATE, OP_FALLOC, OP_FALLOC_KEEP, OP_PUNCH,
	OP_RENAME, OP_LINK, OP_UNLINK, OP_FSYNC, OP_REOPEN, OP_MMAP_WRITE,
	OP_MMAP_READ, OP_NOPS
};

static const char *const op_names[OP_NOPS] = {
	[OP_WRITE] = "write", [OP_READ] = "read", [OP_TRUNCATE] = "truncate",
	[OP_FALLOC] = "fallocate", [OP_FALLOC_KEEP] = "fallocate-keep-size",
	[OP_PUNCH] = "punch-hole", [OP_RENAME] = "rename", [OP_LINK] = "link",
	[OP_UNLINK] = "unlink", [OP_FSYNC] = "fsync", [OP_REOPEN] = "reopen",
	[OP_MMAP_WRITE] = "mmap-write", [OP_MMAP_READ] = "mmap-read",
};

/* Relative weights of the ops in the random mix (--without sets some to 0). */
static unsigned op_weights[OP_NOPS] = {
	[OP_WRITE] = 26, [OP_READ] = 24, [OP_TRUNCATE] = 5, [OP_FALLOC] = 3,
	[OP_FALLOC_KEEP] = 2, [OP_PUNCH] = 4, [OP_RENAME] = 3, [OP_LINK] = 2,
	[OP_UNLINK] = 2, [OP_FSYNC] = 1, [OP_REOPEN] = 3, [OP_MMAP_WRITE] = 6,
	[OP_MMAP_READ] = 3,
};

/* One file (inode) of the model, and its open descriptors in both trees. */
struct inode {
	bool live;
	unsigned nlinks;
	uint8_t *data;          /* model contents, size bytes valid */
	uint64_t size;
	int fd_test, fd_ref;    /* -1 when closed */
};

struct fsx {
	const char *dir, *ref;
	uint64_t seed, rng;
	long nops, op;
	unsigned nnames;
	int name_ino[MAX_NAMES];        /* inode index, or -1 when the name is absent */
	struct inode ino[MAX_NAMES];
	uint64_t max_size;
	long check_every;
	enum view view;
	bool verbose;
	long page;
	uint8_t *buf, *got_test, *got_ref;  /* max_size bytes each */
	char ring[RING][160];           /* descriptions of the last ops */
	const char *without;            /* --without list, for the replay hint */
};

/* ---- pure helpers: random numbers, data pattern ---- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct fsx *f, uint64_t bound)
{
	return bound ? splitmix64(&f->rng) % bound : 0;
}

/* Bytes unique to (seed, op, position), so a misplaced block is visible. */
static void fill_pattern(uint8_t *p, size_t len, uint64_t seed, long op)
{
	uint64_t st = seed ^ ((uint64_t)op * 0x100000001b3ull);

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = splitmix64(&st);
		size_t n = len - i < 8 ? len - i : 8;

		memcpy(p + i, &v, n);
	}
}

/*
 * Offsets and lengths: a mix of tiny, page- and block-aligned, and larger
 * ones.  Kept to tens of KiB on average so that 100,000 ops stay within a
 * test's time on a busy machine.
 */
static void pick_range(struct fsx *f, uint64_t *ret_off, uint64_t *ret_len)
{
	uint64_t off, len, maxlen;

	switch (rnd(f, 4)) {
	case 0: /* aligned 8 KiB blocks, like PostgreSQL */
		off = rnd(f, f->max_size / 8192) * 8192;
		len = (1 + rnd(f, 8)) * 8192;
		break;
	case 1: /* small and unaligned */
		off = rnd(f, f->max_size);
		len = 1 + rnd(f, 4096);
		break;
	case 2: /* page aligned */
		off = rnd(f, f->max_size / 4096) * 4096;
		len = (1 + rnd(f, 16)) * 4096;
		break;
	default: /* anything, up to 128 KiB (a FUSE request is at most 1 MiB) */
		off = rnd(f, f->max_size);
		len = 1 + rnd(f, 128 * 1024);
		break;
	}
	maxlen = f->max_size - off;
	if (len > maxlen)
		len = maxlen ? maxlen : 1;
	if (off + len > f->max_size)
		off = f->max_size - len;
	*ret_off = off;
	*ret_len = len;
}

/* ---- reporting ---- */

static void note(struct fsx *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct fsx *f, const char *fmt, ...)
{
	char *slot = f->ring[f->op % RING];
	int n = snprintf(slot, sizeof(f->ring[0]), "op %ld: ", f->op);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot + n, sizeof(f->ring[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	if (f->verbose)
		printf("%s\n", slot);
}

static void dump_ring(struct fsx *f)
{
	long first = f->op >= RING - 1 ? f->op - (RING - 1) : 0;

	fprintf(stderr, "fsx: last operations:\n");
	for (long i = first; i <= f->op; i++)
		if (f->ring[i % RING][0])
			fprintf(stderr, "    %s\n", f->ring[i % RING]);
}

static void fail(struct fsx *f, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void fail(struct fsx *f, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fsx: %s at op %ld (seed %" PRIu64 "): ",
		code == EXIT_MISMATCH ? "MISMATCH" : "HARNESS ERROR", f->op, f->seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	dump_ring(f);
	fprintf(stderr, "fsx: replay: fsx --seed %" PRIu64 " --ops %ld --files %u --max-size %" PRIu64
		" --view %s%s%s -v TESTDIR REFDIR  (on fresh, empty directories)\n",
		f->seed, f->op + 1, f->nnames / 2, f->max_size,
		f->view == VIEW_SYSCALL ? "syscall" : "device", f->without[0] ? " --without " : "", f->without);
	exit(code);
}

/* ---- the two trees ---- */

static void name_path(char *out, size_t outsz, const char *dir, unsigned name)
{
	snprintf(out, outsz, "%s/f%02u", dir, name);
}

/* Any current name of inode i (a linked inode has at least one). */
static unsigned inode_name(struct fsx *f, int i)
{
	for (unsigned n = 0; n < f->nnames; n++)
		if (f->name_ino[n] == i)
			return n;
	fail(f, EXIT_HARNESS, "inode %d has no name", i);
}

static void inode_open(struct fsx *f, int i)
{
	struct inode *in = &f->ino[i];
	char p[PATH_MAX];
	unsigned n;

	if (in->fd_test >= 0)
		return;
	n = inode_name(f, i);
	name_path(p, sizeof(p), f->dir, n);
	in->fd_test = open(p, O_RDWR | O_CLOEXEC);
	if (in->fd_test < 0)
		fail(f, EXIT_MISMATCH, "open %s: %s", p, strerror(errno));
	name_path(p, sizeof(p), f->ref, n);
	in->fd_ref = open(p, O_RDWR | O_CLOEXEC);
	if (in->fd_ref < 0)
		fail(f, EXIT_HARNESS, "open %s: %s", p, strerror(errno));
}

static void inode_close(struct fsx *f, int i)
{
	struct inode *in = &f->ino[i];

	if (in->fd_test < 0)
		return;
	if (close(in->fd_test) < 0)
		fail(f, EXIT_MISMATCH, "close (test) f%02u: %s", inode_name(f, i), strerror(errno));
	if (close(in->fd_ref) < 0)
		fail(f, EXIT_HARNESS, "close (ref): %s", strerror(errno));
	in->fd_test = in->fd_ref = -1;
}

static void inode_drop(struct fsx *f, int i)
{
	struct inode *in = &f->ino[i];

	/* The fds still refer to the unlinked inode; close them first. */
	if (in->fd_test >= 0) {
		close(in->fd_test);
		close(in->fd_ref);
	}
	free(in->data);
	memset(in, 0, sizeof(*in));
	in->fd_test = in->fd_ref = -1;
}

/* Create an empty file under name n (absent) in both trees and the model. */
static int name_create(struct fsx *f, unsigned n)
{
	char p[PATH_MAX];
	int i, fd;

	for (i = 0; i < MAX_NAMES && f->ino[i].live; i++)
		;
	if (i == MAX_NAMES)
		fail(f, EXIT_HARNESS, "out of inode slots");
	name_path(p, sizeof(p), f->dir, n);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(f, EXIT_MISMATCH, "create %s: %s", p, strerror(errno));
	f->ino[i].fd_test = fd;
	name_path(p, sizeof(p), f->ref, n);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(f, EXIT_HARNESS, "create %s: %s", p, strerror(errno));
	f->ino[i].fd_ref = fd;
	f->ino[i].live = true;
	f->ino[i].nlinks = 1;
	f->ino[i].size = 0;
	f->ino[i].data = calloc(1, f->max_size);
	if (!f->ino[i].data)
		fail(f, EXIT_HARNESS, "out of memory");
	f->name_ino[n] = i;
	return i;
}

/* A random live name, creating one when none exists (or sometimes anyway). */
static unsigned pick_live(struct fsx *f, bool may_create)
{
	unsigned live[MAX_NAMES], nlive = 0, n;

	for (n = 0; n < f->nnames; n++)
		if (f->name_ino[n] >= 0)
			live[nlive++] = n;
	if (nlive == 0 || (may_create && nlive < f->nnames && rnd(f, 16) == 0)) {
		do
			n = (unsigned)rnd(f, f->nnames);
		while (f->name_ino[n] >= 0);
		name_create(f, n);
		note(f, "create f%02u", n);
		f->op++;  /* the creation is an op of its own in the log */
		return n;
	}
	return live[rnd(f, nlive)];
}

/* Both trees must give the same result; the model says what it must be. */
static void same_result(struct fsx *f, const char *what, long rt, int et, long rr, int er)
{
	if (rr < 0 && rt < 0 && et == er)
		return;
	if (rr < 0 && rt >= 0)
		fail(f, EXIT_MISMATCH, "%s: native failed with %s, test returned %ld", what, strerror(er), rt);
	if (rt < 0 && rr >= 0)
		fail(f, EXIT_MISMATCH, "%s: test failed with %s (native returned %ld)", what, strerror(et), rr);
	if (rt < 0)
		fail(f, EXIT_MISMATCH, "%s: test failed with %s, native with %s", what, strerror(et), strerror(er));
	if (rt != rr)
		fail(f, EXIT_MISMATCH, "%s: test returned %ld, native %ld", what, rt, rr);
}

static void compare_bytes(struct fsx *f, const char *what, uint64_t base,
			  const uint8_t *model, const uint8_t *test, const uint8_t *ref, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (ref && ref[i] != model[i])
			fail(f, EXIT_HARNESS, "%s: native byte at %" PRIu64 " is 0x%02x, model says 0x%02x",
			     what, base + i, ref[i], model[i]);
		if (test[i] != model[i]) {
			size_t end = i;

			while (end < len && test[end] != model[end])
				end++;
			fail(f, EXIT_MISMATCH, "%s: bytes %" PRIu64 "..%" PRIu64 " differ (first: got 0x%02x, expected 0x%02x)",
			     what, base + i, base + end - 1, test[i], model[i]);
		}
	}
}

/* Size and link count of inode i, by fstat on both open fds. */
static void check_stat(struct fsx *f, int i)
{
	struct inode *in = &f->ino[i];
	struct stat st, sr;

	inode_open(f, i);
	if (fstat(in->fd_test, &st) < 0)
		fail(f, EXIT_MISMATCH, "fstat f%02u: %s", inode_name(f, i), strerror(errno));
	if (fstat(in->fd_ref, &sr) < 0)
		fail(f, EXIT_HARNESS, "fstat (native): %s", strerror(errno));
	if ((uint64_t)sr.st_size != in->size || sr.st_nlink != in->nlinks)
		fail(f, EXIT_HARNESS, "native f%02u: size %jd nlink %ju, model %" PRIu64 " %u",
		     inode_name(f, i), (intmax_t)sr.st_size, (uintmax_t)sr.st_nlink, in->size, in->nlinks);
	if ((uint64_t)st.st_size != in->size)
		fail(f, EXIT_MISMATCH, "f%02u: size %jd, expected %" PRIu64, inode_name(f, i),
		     (intmax_t)st.st_size, in->size);
	if (st.st_nlink != in->nlinks)
		fail(f, EXIT_MISMATCH, "f%02u: st_nlink %ju, expected %u", inode_name(f, i),
		     (uintmax_t)st.st_nlink, in->nlinks);
}

/* ---- the ops; each returns the inode it touched, or -1 ---- */

static int do_write(struct fsx *f)
{
	unsigned n = pick_live(f, true);
	int i = f->name_ino[n];
	struct inode *in = &f->ino[i];
	uint64_t off, len;
	ssize_t rt, rr;
	int et, er;

	pick_range(f, &off, &len);
	note(f, "write f%02u off %" PRIu64 " len %" PRIu64 " (size %" PRIu64 ")", n, off, len, in->size);
	inode_open(f, i);
	fill_pattern(f->buf, len, f->seed, f->op);
	rt = pwrite(in->fd_test, f->buf, len, (off_t)off);
	et = errno;
	rr = pwrite(in->fd_ref, f->buf, len, (off_t)off);
	er = errno;
	same_result(f, "pwrite", rt, et, rr, er);
	if (rr != (ssize_t)len)
		fail(f, EXIT_HARNESS, "native short write %zd of %" PRIu64, rr, len);
	memcpy(in->data + off, f->buf, len);
	if (off + len > in->size)
		in->size = off + len;
	return i;
}

static int do_read(struct fsx *f)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];
	struct inode *in = &f->ino[i];
	uint64_t off, len, expect;
	ssize_t rt, rr;
	int et, er;
	char what[64];

	pick_range(f, &off, &len);
	note(f, "read f%02u off %" PRIu64 " len %" PRIu64 " (size %" PRIu64 ")", n, off, len, in->size);
	inode_open(f, i);
	rt = pread(in->fd_test, f->got_test, len, (off_t)off);
	et = errno;
	rr = pread(in->fd_ref, f->got_ref, len, (off_t)off);
	er = errno;
	same_result(f, "pread", rt, et, rr, er);
	expect = off >= in->size ? 0 : (in->size - off < len ? in->size - off : len);
	if ((uint64_t)rr != expect)
		fail(f, EXIT_HARNESS, "native read %zd bytes, model expects %" PRIu64, rr, expect);
	snprintf(what, sizeof(what), "read f%02u", n);
	compare_bytes(f, what, off, in->data + off, f->got_test, f->got_ref, expect);
	return i;
}

static int do_truncate(struct fsx *f)
{
	unsigned n = pick_live(f, true);
	int i = f->name_ino[n];
	struct inode *in = &f->ino[i];
	uint64_t size;
	int rt, rr, et, er;

	/* Favour shrinking a little, and sometimes cut to a block boundary. */
	size = rnd(f, 2) ? rnd(f, f->max_size + 1) : rnd(f, in->size + 1);
	if (rnd(f, 3) == 0)
		size &= ~(uint64_t)8191;
	note(f, "truncate f%02u to %" PRIu64 " (size %" PRIu64 ")", n, size, in->size);
	inode_open(f, i);
	rt = ftruncate(in->fd_test, (off_t)size);
	et = errno;
	rr = ftruncate(in->fd_ref, (off_t)size);
	er = errno;
	same_result(f, "ftruncate", rt, et, rr, er);
	if (size < in->size)
		memset(in->data + size, 0, in->size - size);
	in->size = size;
	return i;
}

static int do_fallocate(struct fsx *f, int mode, const char *label)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];
	struct inode *in = &f->ino[i];
	uint64_t off, len;
	int rt, rr, et, er;

	pick_range(f, &off, &len);
	note(f, "%s f%02u off %" PRIu64 " len %" PRIu64 " (size %" PRIu64 ")", label, n, off, len, in->size);
	inode_open(f, i);
	rt = fallocate(in->fd_test, mode, (off_t)off, (off_t)len);
	et = errno;
	rr = fallocate(in->fd_ref, mode, (off_t)off, (off_t)len);
	er = errno;
	same_result(f, label, rt, et, rr, er);
	if (rr < 0)
		fail(f, EXIT_HARNESS, "native %s: %s", label, strerror(er));
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		uint64_t end = off + len < in->size ? off + len : in->size;

		if (off < end)
			memset(in->data + off, 0, end - off);
	} else if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > in->size) {
		in->size = off + len;  /* the new tail reads as zeroes */
	}
	return i;
}

static int do_rename(struct fsx *f)
{
	unsigned a = pick_live(f, false), b = (unsigned)rnd(f, f->nnames);
	char pa[PATH_MAX], pb[PATH_MAX];
	int rt, rr, et, er, ia = f->name_ino[a], ib = f->name_ino[b];

	note(f, "rename f%02u -> f%02u (%s)", a, b, ib < 0 ? "new name" : ib == ia ? "same inode" : "replaces");
	name_path(pa, sizeof(pa), f->dir, a);
	name_path(pb, sizeof(pb), f->dir, b);
	rt = rename(pa, pb);
	et = errno;
	name_path(pa, sizeof(pa), f->ref, a);
	name_path(pb, sizeof(pb), f->ref, b);
	rr = rename(pa, pb);
	er = errno;
	same_result(f, "rename", rt, et, rr, er);
	if (a == b || ia == ib)
		return ia;  /* POSIX: renaming a name onto a link of the same file changes nothing */
	if (ib >= 0 && --f->ino[ib].nlinks == 0)
		inode_drop(f, ib);
	f->name_ino[b] = ia;
	f->name_ino[a] = -1;
	return ia;
}

static int do_link(struct fsx *f)
{
	unsigned a = pick_live(f, false), b = (unsigned)rnd(f, f->nnames);
	char pa[PATH_MAX], pb[PATH_MAX];
	int rt, rr, et, er, ia = f->name_ino[a];

	note(f, "link f%02u -> f%02u%s", a, b, f->name_ino[b] >= 0 ? " (exists: EEXIST)" : "");
	name_path(pa, sizeof(pa), f->dir, a);
	name_path(pb, sizeof(pb), f->dir, b);
	rt = link(pa, pb);
	et = errno;
	name_path(pa, sizeof(pa), f->ref, a);
	name_path(pb, sizeof(pb), f->ref, b);
	rr = link(pa, pb);
	er = errno;
	same_result(f, "link", rt, et, rr, er);
	if (rr == 0) {
		f->name_ino[b] = ia;
		f->ino[ia].nlinks++;
	}
	return ia;
}

static int do_unlink(struct fsx *f)
{
	unsigned a = pick_live(f, false);
	char p[PATH_MAX];
	int rt, rr, et, er, ia = f->name_ino[a];

	note(f, "unlink f%02u (nlinks %u)", a, f->ino[ia].nlinks);
	name_path(p, sizeof(p), f->dir, a);
	rt = unlink(p);
	et = errno;
	name_path(p, sizeof(p), f->ref, a);
	rr = unlink(p);
	er = errno;
	same_result(f, "unlink", rt, et, rr, er);
	f->name_ino[a] = -1;
	if (--f->ino[ia].nlinks == 0) {
		inode_drop(f, ia);
		return -1;
	}
	return ia;
}

static int do_fsync(struct fsx *f)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];
	bool data_only = rnd(f, 2);
	int rt, rr, et, er;

	note(f, "%s f%02u", data_only ? "fdatasync" : "fsync", n);
	inode_open(f, i);
	rt = data_only ? fdatasync(f->ino[i].fd_test) : fsync(f->ino[i].fd_test);
	et = errno;
	rr = data_only ? fdatasync(f->ino[i].fd_ref) : fsync(f->ino[i].fd_ref);
	er = errno;
	same_result(f, "fsync", rt, et, rr, er);
	return i;
}

static int do_reopen(struct fsx *f)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];

	note(f, "close and reopen f%02u", n);
	inode_close(f, i);
	inode_open(f, i);
	return i;
}

/* A page-aligned window [*off, *off + *len) inside a file of size size. */
static bool pick_mmap_window(struct fsx *f, uint64_t size, uint64_t *ret_off, uint64_t *ret_len)
{
	uint64_t off, len;

	if (size == 0)
		return false;
	off = rnd(f, size);
	len = 1 + rnd(f, 64 * 1024);
	if (off + len > size)
		len = size - off;
	*ret_off = off;
	*ret_len = len;
	return true;
}

/* Device view: write through a shared mapping; native gets the same bytes by pwrite. */
static int do_mmap_write_device(struct fsx *f, unsigned n, int i)
{
	struct inode *in = &f->ino[i];
	uint64_t off, len, pgoff, maplen;
	bool sync = rnd(f, 8) == 0;
	uint8_t *map;

	if (!pick_mmap_window(f, in->size, &off, &len)) {
		note(f, "mmap-write f%02u skipped: empty file", n);
		return i;
	}
	note(f, "mmap-write f%02u off %" PRIu64 " len %" PRIu64 "%s (size %" PRIu64 ")",
	     n, off, len, sync ? " msync" : "", in->size);
	inode_open(f, i);
	pgoff = off & ~(uint64_t)(f->page - 1);
	maplen = off + len - pgoff;
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, in->fd_test, (off_t)pgoff);
	if (map == MAP_FAILED)
		fail(f, EXIT_MISMATCH, "mmap MAP_SHARED rw f%02u: %s", n, strerror(errno));
	fill_pattern(f->buf, len, f->seed, f->op);
	memcpy(map + (off - pgoff), f->buf, len);
	if (sync && msync(map, maplen, MS_SYNC) < 0)
		fail(f, EXIT_MISMATCH, "msync f%02u: %s", n, strerror(errno));
	munmap(map, maplen);
	if (pwrite(in->fd_ref, f->buf, len, (off_t)off) != (ssize_t)len)
		fail(f, EXIT_HARNESS, "native pwrite: %s", strerror(errno));
	memcpy(in->data + off, f->buf, len);
	return i;
}

/*
 * Syscall view (direct_io): a shared writable mapping must be refused with
 * an error and leave the file as it was; a copy-on-write private mapping
 * must work and not reach the file.
 */
static int do_mmap_write_syscall(struct fsx *f, unsigned n, int i)
{
	struct inode *in = &f->ino[i];
	uint64_t off, len, pgoff, maplen;
	uint8_t *map;

	if (!pick_mmap_window(f, in->size, &off, &len)) {
		note(f, "mmap-write f%02u skipped: empty file", n);
		return i;
	}
	note(f, "mmap-write f%02u off %" PRIu64 " len %" PRIu64 " (syscall view: shared must fail, private COW)",
	     n, off, len);
	inode_open(f, i);
	pgoff = off & ~(uint64_t)(f->page - 1);
	maplen = off + len - pgoff;
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, in->fd_test, (off_t)pgoff);
	if (map != MAP_FAILED) {
		munmap(map, maplen);
		fail(f, EXIT_MISMATCH, "syscall view: a shared writable mmap of f%02u succeeded; it must fail", n);
	}
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE, in->fd_test, (off_t)pgoff);
	if (map == MAP_FAILED)
		fail(f, EXIT_MISMATCH, "syscall view: private writable mmap of f%02u failed: %s", n, strerror(errno));
	compare_bytes(f, "private mmap (before COW write)", off, in->data + off, map + (off - pgoff), NULL, len);
	memset(map + (off - pgoff), 0xa5, len);  /* copy-on-write: must not reach the file */
	munmap(map, maplen);
	return i;
}

static int do_mmap_read(struct fsx *f)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];
	struct inode *in = &f->ino[i];
	uint64_t off, len, pgoff, maplen;
	int flags = f->view == VIEW_SYSCALL ? MAP_PRIVATE : MAP_SHARED;
	char what[64];
	uint8_t *map;

	if (!pick_mmap_window(f, in->size, &off, &len)) {
		note(f, "mmap-read f%02u skipped: empty file", n);
		return i;
	}
	note(f, "mmap-read f%02u off %" PRIu64 " len %" PRIu64 " (%s)", n, off, len,
	     flags == MAP_SHARED ? "shared" : "private");
	inode_open(f, i);
	pgoff = off & ~(uint64_t)(f->page - 1);
	maplen = off + len - pgoff;
	map = mmap(NULL, maplen, PROT_READ, flags, in->fd_test, (off_t)pgoff);
	if (map == MAP_FAILED)
		fail(f, EXIT_MISMATCH, "read-only mmap of f%02u failed: %s", n, strerror(errno));
	snprintf(what, sizeof(what), "mmap-read f%02u", n);
	compare_bytes(f, what, off, in->data + off, map + (off - pgoff), NULL, len);
	munmap(map, maplen);
	return i;
}

static int do_mmap_write(struct fsx *f)
{
	unsigned n = pick_live(f, false);
	int i = f->name_ino[n];

	return f->view == VIEW_SYSCALL ? do_mmap_write_syscall(f, n, i) : do_mmap_write_device(f, n, i);
}

/* ---- full checks ---- */

static void read_whole(struct fsx *f, const char *path, uint8_t *buf, uint64_t size, int code)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t done = 0;

	if (fd < 0)
		fail(f, code, "open %s: %s", path, strerror(errno));
	while (done <= size) {
		/* Read one byte past the expected end: there must be nothing there. */
		uint8_t extra;
		ssize_t r = done < size ? pread(fd, buf + done, size - done, (off_t)done)
					: pread(fd, &extra, 1, (off_t)done);

		if (r < 0)
			fail(f, code, "read %s at %" PRIu64 ": %s", path, done, strerror(errno));
		if (r == 0)
			break;
		if (done == size)
			fail(f, code, "%s has data past its expected size %" PRIu64, path, size);
		done += (uint64_t)r;
	}
	close(fd);
	if (done != size)
		fail(f, code, "%s: read %" PRIu64 " bytes, expected %" PRIu64, path, done, size);
}

static void check_listing(struct fsx *f, const char *dir, int code)
{
	bool seen[MAX_NAMES] = { false };
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n;

	if (!d)
		fail(f, code, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char extra;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (sscanf(de->d_name, "f%2u%c", &n, &extra) != 1 || n >= f->nnames || f->name_ino[n] < 0) {
			closedir(d);
			fail(f, code, "%s lists \"%s\", which should not exist", dir, de->d_name);
		}
		seen[n] = true;
	}
	closedir(d);
	for (n = 0; n < f->nnames; n++)
		if (f->name_ino[n] >= 0 && !seen[n])
			fail(f, code, "%s does not list f%02u", dir, n);
}

static void check_all(struct fsx *f)
{
	char p[PATH_MAX], what[64];

	check_listing(f, f->ref, EXIT_HARNESS);
	check_listing(f, f->dir, EXIT_MISMATCH);
	for (unsigned n = 0; n < f->nnames; n++) {
		int i = f->name_ino[n];

		if (i < 0)
			continue;
		check_stat(f, i);
		name_path(p, sizeof(p), f->ref, n);
		read_whole(f, p, f->got_ref, f->ino[i].size, EXIT_HARNESS);
		name_path(p, sizeof(p), f->dir, n);
		read_whole(f, p, f->got_test, f->ino[i].size, EXIT_MISMATCH);
		snprintf(what, sizeof(what), "full check of f%02u", n);
		compare_bytes(f, what, 0, f->ino[i].data, f->got_test, f->got_ref, f->ino[i].size);
	}
}

static enum op pick_op(struct fsx *f)
{
	unsigned total = 0, r;
	int o;

	for (o = 0; o < OP_NOPS; o++)
		total += op_weights[o];
	r = (unsigned)rnd(f, total);
	for (o = 0; o < OP_NOPS; o++) {
		if (r < op_weights[o])
			break;
		r -= op_weights[o];
	}
	return (enum op)o;
}

static int run(struct fsx *f)
{
	long counts[OP_NOPS] = { 0 };
	double secs[OP_NOPS] = { 0 }, check_secs = 0;
	char p[PATH_MAX];
	struct timespec t0, t1, a, b;

	for (unsigned n = 0; n < f->nnames; n++) {
		f->name_ino[n] = -1;
		f->ino[n].fd_test = f->ino[n].fd_ref = -1;
		name_path(p, sizeof(p), f->dir, n);
		if (unlink(p) < 0 && errno != ENOENT)
			fail(f, EXIT_HARNESS, "cannot clear %s: %s", p, strerror(errno));
		name_path(p, sizeof(p), f->ref, n);
		if (unlink(p) < 0 && errno != ENOENT)
			fail(f, EXIT_HARNESS, "cannot clear %s: %s", p, strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (f->op = 0; f->op < f->nops; f->op++) {
		enum op o = pick_op(f);
		int i = -1;

		clock_gettime(CLOCK_MONOTONIC, &a);
		switch (o) {
		case OP_WRITE: i = do_write(f); break;
		case OP_READ: i = do_read(f); break;
		case OP_TRUNCATE: i = do_truncate(f); break;
		case OP_FALLOC: i = do_fallocate(f, 0, "fallocate"); break;
		case OP_FALLOC_KEEP: i = do_fallocate(f, FALLOC_FL_KEEP_SIZE, "fallocate-keep-size"); break;
		case OP_PUNCH: i = do_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch-hole"); break;
		case OP_RENAME: i = do_rename(f); break;
		case OP_LINK: i = do_link(f); break;
		case OP_UNLINK: i = do_unlink(f); break;
		case OP_FSYNC: i = do_fsync(f); break;
		case OP_REOPEN: i = do_reopen(f); break;
		case OP_MMAP_WRITE: i = do_mmap_write(f); break;
		case OP_MMAP_READ: i = do_mmap_read(f); break;
		case OP_NOPS: break;
		}
		counts[o]++;
		if (i >= 0 && f->ino[i].live)
			check_stat(f, i);
		clock_gettime(CLOCK_MONOTONIC, &b);
		secs[o] += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (f->check_every > 0 && (f->op + 1) % f->check_every == 0) {
			check_all(f);
			clock_gettime(CLOCK_MONOTONIC, &a);
			check_secs += (double)(a.tv_sec - b.tv_sec) + (double)(a.tv_nsec - b.tv_nsec) / 1e9;
		}
	}
	f->op = f->nops > 0 ? f->nops - 1 : 0;
	check_all(f);
	for (unsigned n = 0; n < f->nnames; n++)
		if (f->name_ino[n] >= 0)
			inode_close(f, f->name_ino[n]);
	check_all(f);  /* after every release: what a later open sees */
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("fsx: %ld ops, seed %" PRIu64 ", view %s, %u names, max size %" PRIu64 ": no mismatch (%.1f s)\n",
	       f->nops, f->seed, f->view == VIEW_SYSCALL ? "syscall" : "device", f->nnames, f->max_size,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("fsx: op counts (seconds):");
	for (int o = 0; o < OP_NOPS; o++)
		printf(" %s=%ld (%.1f)", op_names[o], counts[o], secs[o]);
	printf("; full checks %.1f s\n", check_secs);
	return 0;
}

/* ---- --compare: two trees of regular files must be identical ---- */

static int compare_file(const char *a, const char *b)
{
	static uint8_t ba[1 << 16], bb[1 << 16];
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC), rc = 0;
	uint64_t off = 0;

	if (fa < 0 || fb < 0) {
		fprintf(stderr, "fsx: cannot open %s: %s\n", fa < 0 ? a : b, strerror(errno));
		rc = 1;
		goto out;
	}
	for (;;) {
		ssize_t ra = read(fa, ba, sizeof(ba)), rb = read(fb, bb, sizeof(bb));

		if (ra < 0 || rb < 0) {
			fprintf(stderr, "fsx: read error comparing %s and %s: %s\n", a, b, strerror(errno));
			rc = 1;
			break;
		}
		if (ra != rb || memcmp(ba, bb, (size_t)ra)) {
			fprintf(stderr, "fsx: MISMATCH: %s and %s differ in the 64 KiB at offset %" PRIu64 "\n", a, b, off);
			rc = 1;
			break;
		}
		if (ra == 0)
			break;
		off += (uint64_t)ra;
	}
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return rc;
}

static int compare_trees(const char *a, const char *b)
{
	struct dirent **la, **lb;
	int na = scandir(a, &la, NULL, alphasort), nb = scandir(b, &lb, NULL, alphasort);
	int rc = 0, files = 0;

	if (na < 0 || nb < 0) {
		fprintf(stderr, "fsx: cannot list %s: %s\n", na < 0 ? a : b, strerror(errno));
		return EXIT_HARNESS;
	}
	if (na != nb) {
		fprintf(stderr, "fsx: MISMATCH: %s has %d entries, %s has %d\n", a, na, b, nb);
		rc = 1;
	}
	for (int i = 0; i < na && i < nb && !rc; i++) {
		char pa[PATH_MAX], pb[PATH_MAX];

		if (strcmp(la[i]->d_name, lb[i]->d_name)) {
			fprintf(stderr, "fsx: MISMATCH: %s has %s where %s has %s\n", a, la[i]->d_name, b, lb[i]->d_name);
			rc = 1;
			break;
		}
		if (!strcmp(la[i]->d_name, ".") || !strcmp(la[i]->d_name, ".."))
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", a, la[i]->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, lb[i]->d_name);
		rc = compare_file(pa, pb);
		files++;
	}
	for (int i = 0; i < na; i++)
		free(la[i]);
	for (int i = 0; i < nb; i++)
		free(lb[i]);
	free(la);
	free(lb);
	if (!rc)
		printf("fsx: %s and %s hold the same %d files\n", a, b, files);
	return rc;
}

static int without_ops(const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int o;

		for (o = 0; o < OP_NOPS && strcmp(op_names[o], tok); o++)
			;
		if (o == OP_NOPS || o == OP_WRITE) {
			fprintf(stderr, "fsx: --without: unknown op \"%s\" (write cannot be left out)\n", tok);
			rc = -EINVAL;
			break;
		}
		op_weights[o] = 0;
	}
	free(copy);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsx [options] TESTDIR REFDIR\n"
		"       fsx --compare DIR_A DIR_B\n"
		"  -n, --ops N           operations to run (default 100000)\n"
		"  -s, --seed S          random seed (default: from the clock; printed)\n"
		"  -f, --files N         files (names: 2N, up to %d; default 4)\n"
		"  -m, --max-size BYTES  largest file size (default 2097152)\n"
		"  -c, --check-every N   full content check every N ops (default 5000; 0 = only at the end)\n"
		"      --view device|syscall  what the file system under test serves (default device)\n"
		"      --without OP[,OP] leave ops out of the mix (write, read, truncate, fallocate,\n"
		"                        fallocate-keep-size, punch-hole, rename, link, unlink,\n"
		"                        fsync, reopen, mmap-write, mmap-read)\n"
		"  -v, --verbose         print every op\n",
		MAX_NAMES / 2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "files", required_argument, NULL, 'f' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "check-every", required_argument, NULL, 'c' },
		{ "view", required_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "compare", no_argument, NULL, 'C' },
		{ "without", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fsx f = { .nops = 100000, .nnames = 8, .max_size = 2u << 20, .check_every = 5000 };
	bool compare = false, seeded = false;

	f.without = "";
	unsigned long files;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "n:s:f:m:c:vh", longopts, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'n': f.nops = strtol(optarg, &end, 10); break;
		case 's': f.seed = strtoull(optarg, &end, 10); seeded = true; break;
		case 'f':
			files = strtoul(optarg, &end, 10);
			if (files < 1 || files > MAX_NAMES / 2) {
				fprintf(stderr, "fsx: --files must be 1..%d\n", MAX_NAMES / 2);
				return 2;
			}
			f.nnames = (unsigned)files * 2;
			break;
		case 'm': f.max_size = strtoull(optarg, &end, 10); break;
		case 'c': f.check_every = strtol(optarg, &end, 10); break;
		case 'V':
			end = optarg + strlen(optarg);
			if (!strcmp(optarg, "syscall"))
				f.view = VIEW_SYSCALL;
			else if (strcmp(optarg, "device")) {
				fprintf(stderr, "fsx: --view must be device or syscall, not \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'W':
			if (without_ops(optarg) < 0)
				return 2;
			f.without = optarg;
			continue;
		case 'v': f.verbose = true; continue;
		case 'C': compare = true; continue;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (errno || *end) {
			fprintf(stderr, "fsx: bad number \"%s\"\n", optarg);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	if (compare)
		return compare_trees(argv[optind], argv[optind + 1]);
	if (f.max_size < 65536 || f.max_size > (64u << 20) || f.nops < 0) {
		fprintf(stderr, "fsx: --max-size must be 64 KiB..64 MiB and --ops >= 0\n");
		return 2;
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		f.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
	}
	f.rng = f.seed;
	f.dir = argv[optind];
	f.ref = argv[optind + 1];
	f.page = sysconf(_SC_PAGESIZE);
	f.buf = malloc(f.max_size);
	f.got_test = malloc(f.max_size);
	f.got_ref = malloc(f.max_size);
	if (!f.buf || !f.got_test || !f.got_ref) {
		fprintf(stderr, "fsx: out of memory\n");
		return EXIT_HARNESS;
	}
	printf("fsx: seed %" PRIu64 ", %ld ops on %s against %s\n", f.seed, f.nops, f.dir, f.ref);
	fflush(stdout);
	return run(&f);
}
