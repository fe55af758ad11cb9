/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_gaps: the file table and records follow renames and truncations.
 *
 *     trace_gaps run MNT                 issue the pattern under MNT/gaps/, print our pid
 *     trace_gaps check TRACE PID [N]     after unmount: check the trace (and, with N,
 *                                        that the footer says N records written)
 *
 * The pattern:
 *   1. gaps/d1/f and gaps/d1/sub/g are written and fsynced (both get trace
 *      ids), then the directory gaps/d1 is renamed to gaps/d2 and both files
 *      are written again through their new paths.  The second writes must be
 *      on ids whose file-table paths are gaps/d2/f and gaps/d2/sub/g, and a
 *      RENAME record (by us) must lead from each old id to its new one.
 *   2. gaps/t is written (8 KiB) and closed, then opened with O_TRUNC: a
 *      TRUNCATE record to size 0 on gaps/t, by us, with result 0.
 *   3. gaps/a and gaps/b are written and closed, then a is renamed over b:
 *      an UNLINK record (by us, result 0) on the id of the old gaps/b, and a
 *      RENAME record from gaps/a's id to an id whose path is gaps/b.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/trace.h"

static int failures;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("trace_gaps: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "trace_gaps: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* ---- run ---- */

static void write_file(const char *mnt, const char *rel, int oflags, size_t len)
{
	char path[4096], buf[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	memset(buf, 'x', sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | oflags, 0644);
	if (fd < 0)
		die("open", path);
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (len && pwrite(fd, buf, len, 0) != (ssize_t)len)
		die("write", path);
	if (fsync(fd) < 0)
		die("fsync", path);
	if (close(fd) < 0)
		die("close", path);
}

static void xmkdir(const char *mnt, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	if (mkdir(path, 0755) < 0)
		die("mkdir", path);
}

static void xrename(const char *mnt, const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/%s", mnt, from);
	snprintf(b, sizeof(b), "%s/%s", mnt, to);
	if (rename(a, b) < 0)
		die("rename", a);
}

static int run(const char *mnt)
{
	xmkdir(mnt, "gaps");
	xmkdir(mnt, "gaps/d1");
	xmkdir(mnt, "gaps/d1/sub");
	write_file(mnt, "gaps/d1/f", 0, 4096);
	write_file(mnt, "gaps/d1/sub/g", 0, 4096);
	xrename(mnt, "gaps/d1", "gaps/d2");
	write_file(mnt, "gaps/d2/f", 0, 4096);
	write_file(mnt, "gaps/d2/sub/g", 0, 4096);

	write_file(mnt, "gaps/t", 0, 8192);
	write_file(mnt, "gaps/t", O_TRUNC, 0);

	write_file(mnt, "gaps/a", 0, 4096);
	write_file(mnt, "gaps/b", 0, 4096);
	xrename(mnt, "gaps/a", "gaps/b");
	printf("%ld\n", (long)getpid());
	return 0;
}

/* ---- check ---- */

/* All ids whose path is path, in id order, into ids (at most max); returns the count. */
static size_t ids_of(const struct dut_trace *t, const char *path, uint32_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nfiles && n < max; i++)
		if (!strcmp(t->files[i].path, path))
			ids[n++] = t->files[i].id;
	return n;
}

static const char *path_of(const struct dut_trace *t, uint32_t id)
{
	const struct dut_trace_file *f = dut_trace_file_by_id(t, id);

	return f ? f->path : "(no file-table entry)";
}

static const struct dut_trace_rec *find_rec(const struct dut_trace *t, uint16_t op, uint32_t id,
					    uint32_t pid)
{
	for (size_t i = 0; i < t->nrecs; i++)
		if (t->recs[i].op == op && t->recs[i].file_id == id && t->recs[i].pid == pid)
			return &t->recs[i];
	return NULL;
}

/* A file moved from old_path to new_path: a RENAME old -> new id, writes after it on the new id. */
static void check_moved(const struct dut_trace *t, const char *old_path, const char *new_path,
			uint32_t pid, bool writes_after)
{
	uint32_t olds[4], news[4];
	size_t no = ids_of(t, old_path, olds, 4), nn = ids_of(t, new_path, news, 4);
	const struct dut_trace_rec *ren;

	if (no != 1) {
		bad("%zu file-table entries for %s, want 1", no, old_path);
		return;
	}
	if (nn < 1) {
		bad("no file-table entry for %s (the new name of %s)", new_path, old_path);
		return;
	}
	ren = find_rec(t, DUT_OP_RENAME, olds[0], pid);
	if (!ren) {
		bad("no RENAME record by pid %u for %s (id %u)", pid, old_path, olds[0]);
		return;
	}
	if (strcmp(path_of(t, (uint32_t)ren->offset), new_path))
		bad("RENAME of %s leads to id %llu = %s, want %s", old_path,
		    (unsigned long long)ren->offset, path_of(t, (uint32_t)ren->offset), new_path);
	if (!writes_after)
		return;
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];

		if (r->op != DUT_OP_WRITE || r->ts_ns < ren->ts_ns)
			continue;
		if (r->file_id == olds[0])
			bad("a WRITE after the rename is still on %s (id %u)", old_path, olds[0]);
	}
	if (!find_rec(t, DUT_OP_WRITE, (uint32_t)ren->offset, 0) &&
	    !find_rec(t, DUT_OP_WRITE, (uint32_t)ren->offset, pid))
		bad("no WRITE on %s (id %llu) after the rename", new_path, (unsigned long long)ren->offset);
}

static int check(const char *path, uint32_t pid, long want_written)
{
	struct dut_error err = { .msg = "" };
	struct dut_trace *t = NULL;
	const struct dut_trace_rec *r;
	uint32_t ids[4];

	if (dut_trace_load(path, &t, &err) < 0) {
		fprintf(stderr, "trace_gaps: %s\n", err.msg);
		return 1;
	}
	if (!t->has_footer)
		bad("the trace has no footer");
	if (want_written >= 0 && t->footer.records_written != (uint64_t)want_written)
		bad("the exit message says %ld records written, the footer %llu", want_written,
		    (unsigned long long)t->footer.records_written);

	/* 1. a directory rename moves the files below it */
	check_moved(t, "gaps/d1/f", "gaps/d2/f", pid, true);
	check_moved(t, "gaps/d1/sub/g", "gaps/d2/sub/g", pid, true);

	/* 2. open(O_TRUNC) is a TRUNCATE to 0 */
	if (ids_of(t, "gaps/t", ids, 4) != 1) {
		bad("want one file-table entry for gaps/t");
	} else {
		r = find_rec(t, DUT_OP_TRUNCATE, ids[0], pid);
		if (!r)
			bad("no TRUNCATE record by pid %u on gaps/t after open(O_TRUNC)", pid);
		else if (r->offset != 0 || r->result != 0)
			bad("TRUNCATE on gaps/t: size %llu result %d, want 0 and 0",
			    (unsigned long long)r->offset, r->result);
	}

	/* 3. a rename over an existing file unlinks it */
	if (ids_of(t, "gaps/b", ids, 4) != 2) {
		bad("want two file-table entries for gaps/b (the old file, then gaps/a renamed)");
	} else {
		r = find_rec(t, DUT_OP_UNLINK, ids[0], pid);
		if (!r)
			bad("no UNLINK record by pid %u for the gaps/b that rename overwrote (id %u)", pid,
			    ids[0]);
		else if (r->result != 0)
			bad("UNLINK of the overwritten gaps/b has result %d", r->result);
		check_moved(t, "gaps/a", "gaps/b", pid, false);
	}
	dut_trace_free(t);
	if (failures)
		fprintf(stderr, "trace_gaps: %d check(s) failed\n", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "run"))
		return run(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "check"))
		return check(argv[2], (uint32_t)strtoul(argv[3], NULL, 10),
			     argc == 5 ? strtol(argv[4], NULL, 10) : -1);
	fprintf(stderr, "usage: trace_gaps run MNT | trace_gaps check TRACE PID [RECORDS_WRITTEN]\n");
	return 2;
}
