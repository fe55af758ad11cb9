/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_exact: a known access pattern must give exactly the expected trace.
 *
 *     trace_exact run MNT                 issue the pattern under MNT/exact/,
 *                                         print our pid
 *     trace_exact check TRACE VIEW PID    after unmount: check the trace
 *     trace_exact cut TRACE OUT           copy TRACE cut in the middle of the
 *                                         second record of its first RECORDS
 *                                         frame with two or more; print
 *                                         "<cut offset> <frame offset>"
 *     trace_exact info TRACE              what the lib reader makes of TRACE
 *
 * The pattern, between phase markers written to MNT/.dutfs/control:
 *   "direct"   exact/direct, opened O_DIRECT: 10 writes of known sizes at
 *              known offsets, each followed by fsync or fdatasync, then 8
 *              reads.  O_DIRECT bypasses the page cache in both views, and
 *              every request is at most 128 KiB (one FUSE request), so both
 *              views must show exactly these records, in this order, with
 *              our pid and the DIRECT flag, and nothing else for the file.
 *   "off"      "trace off", one more O_DIRECT write, "trace on": that write
 *              must not be in the trace.
 *   "buffered" exact/buffered, opened without O_DIRECT: 5 unaligned writes,
 *              fsync, 3 reads.
 *              syscall view (direct_io): exactly those writes and reads.
 *              device view: the page cache absorbs them; what reaches dutfs
 *              is writeback.  Every WRITE must carry the WRITEBACK flag, lie
 *              inside the file, cover every byte written, and stay within
 *              the written ranges rounded out to 64 KiB (the largest folio
 *              the kernel may write back around a dirty byte); an FSYNC must
 *              follow the last WRITE.  Reads are not checked (readahead).
 *   "end"
 * The markers must be in the trace in that order, each between the records
 * of the phases around it; a bad control command must answer "error: ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/trace.h"

struct io {
	uint64_t off;
	uint32_t len;
};

static const struct io direct_writes[] = {
	{ 0, 4096 }, { 8192, 8192 }, { 65536, 16384 }, { 4096, 4096 },
	{ 131072, 65536 }, { 16384, 32768 }, { 262144, 131072 }, { 49152, 4096 },
	{ 200704, 12288 }, { 524288, 8192 },
};
static const struct io direct_reads[] = {
	{ 0, 4096 }, { 131072, 65536 }, { 8192, 16384 }, { 262144, 131072 },
	{ 524288, 8192 }, { 393216, 4096 }, { 4096, 12288 }, { 200704, 12288 },
};
static const struct io untraced_write = { 786432, 4096 };
static const struct io buffered_writes[] = {
	{ 7, 100 }, { 12345, 5000 }, { 0, 1 }, { 8192, 8192 }, { 100000, 3 },
};
static const struct io buffered_reads[] = {
	{ 0, 10 }, { 12000, 6000 }, { 8190, 20 },
};
#define BUFFERED_SIZE 100003u
#define FOLIO_MAX (64u * 1024)

static const char *const phase_labels[] = { "exact-direct", "exact-off", "exact-buffered", "exact-end" };
#define NPHASES (sizeof(phase_labels) / sizeof(phase_labels[0]))
#define N(a) (sizeof(a) / sizeof((a)[0]))

static int failures;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trace_exact: FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	failures++;
}

/* ---- run: issue the pattern ---- */

static int control(const char *mnt, const char *cmd, bool expect_ok)
{
	char path[4096], reply[256] = "";
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/.dutfs/control", mnt);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "trace_exact: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = write(fd, cmd, strlen(cmd));
	if (expect_ok && n != (ssize_t)strlen(cmd)) {
		fprintf(stderr, "trace_exact: writing \"%.*s\" to %s: %s\n", (int)strcspn(cmd, "\n"), cmd, path,
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	n = pread(fd, reply, sizeof(reply) - 1, 0);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "trace_exact: reading %s: %s\n", path, strerror(errno));
		return -1;
	}
	reply[n] = 0;
	if (expect_ok ? strcmp(reply, "ok\n") : strncmp(reply, "error: ", 7)) {
		fprintf(stderr, "trace_exact: control answered \"%s\" to \"%.*s\", expected %s\n", reply,
			(int)strcspn(cmd, "\n"), cmd, expect_ok ? "\"ok\"" : "\"error: ...\"");
		return -1;
	}
	return 0;
}

static int mark(const char *mnt, const char *label)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "mark %s\n", label);
	return control(mnt, cmd, true);
}

static void fill(uint8_t *buf, size_t len, unsigned salt)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 31 + salt);
}

static int xfer(int fd, bool write_op, uint8_t *buf, const struct io *io, const char *what)
{
	ssize_t n = write_op ? pwrite(fd, buf, io->len, (off_t)io->off) : pread(fd, buf, io->len, (off_t)io->off);

	if (n != (ssize_t)io->len) {
		fprintf(stderr, "trace_exact: %s %u bytes at %" PRIu64 ": %s\n", what, io->len, io->off,
			n < 0 ? strerror(errno) : "short transfer");
		return -1;
	}
	return 0;
}

static int run(const char *mnt)
{
	char path[4096];
	uint8_t *buf;
	int fd;

	if (posix_memalign((void **)&buf, 4096, 256 * 1024))
		return 1;
	snprintf(path, sizeof(path), "%s/exact", mnt);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "trace_exact: mkdir %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (control(mnt, "no-such-command\n", false) < 0)
		return 1;

	/* direct */
	snprintf(path, sizeof(path), "%s/exact/direct", mnt);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0) {
		fprintf(stderr, "trace_exact: open %s O_DIRECT: %s\n", path, strerror(errno));
		return 1;
	}
	if (mark(mnt, phase_labels[0]) < 0)
		return 1;
	for (size_t i = 0; i < N(direct_writes); i++) {
		fill(buf, direct_writes[i].len, (unsigned)i);
		if (xfer(fd, true, buf, &direct_writes[i], "O_DIRECT write") < 0)
			return 1;
		if ((i % 2 ? fdatasync(fd) : fsync(fd)) < 0) {
			fprintf(stderr, "trace_exact: fsync %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	for (size_t i = 0; i < N(direct_reads); i++)
		if (xfer(fd, false, buf, &direct_reads[i], "O_DIRECT read") < 0)
			return 1;

	/* off */
	if (mark(mnt, phase_labels[1]) < 0 || control(mnt, "trace off\n", true) < 0)
		return 1;
	if (xfer(fd, true, buf, &untraced_write, "O_DIRECT write (trace off)") < 0)
		return 1;
	if (control(mnt, "trace on\n", true) < 0)
		return 1;
	close(fd);

	/* buffered */
	if (mark(mnt, phase_labels[2]) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/exact/buffered", mnt);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "trace_exact: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < N(buffered_writes); i++) {
		fill(buf, buffered_writes[i].len, (unsigned)i + 100);
		if (xfer(fd, true, buf, &buffered_writes[i], "write") < 0)
			return 1;
	}
	if (fsync(fd) < 0) {
		fprintf(stderr, "trace_exact: fsync %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < N(buffered_reads); i++)
		if (xfer(fd, false, buf, &buffered_reads[i], "read") < 0)
			return 1;
	close(fd);
	if (mark(mnt, phase_labels[3]) < 0)
		return 1;
	free(buf);
	printf("%d\n", (int)getpid());
	return 0;
}

/* ---- check: compare the trace with the pattern ---- */

static const struct dut_trace_file *file_named(const struct dut_trace *t, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (size_t i = 0; i < t->nfiles; i++) {
		const char *p = t->files[i].path;
		size_t pl = strlen(p);

		if (pl >= sl && !strcmp(p + pl - sl, suffix) && (pl == sl || p[pl - sl - 1] == '/'))
			return &t->files[i];
	}
	return NULL;
}

static uint64_t marker_ts(const struct dut_trace *t, const char *label)
{
	for (size_t i = 0; i < t->nmarkers; i++)
		if (!strcmp(t->markers[i].label, label))
			return t->markers[i].ts_ns;
	return 0;
}

static bool is_io(uint16_t op)
{
	return op == DUT_OP_READ || op == DUT_OP_WRITE || op == DUT_OP_FSYNC || op == DUT_OP_FDATASYNC;
}

static void describe(char *out, size_t sz, const struct dut_trace_rec *r)
{
	snprintf(out, sz, "%s off %" PRIu64 " len %u result %d flags 0x%x pid %u",
		 dut_trace_op_name(r->op), r->offset, r->len, r->result, r->flags, r->pid);
}

/* Phase "direct": the exact sequence of I/O records on exact/direct. */
static void check_direct(const struct dut_trace *t, uint32_t id, uint32_t pid, uint64_t t0, uint64_t t1)
{
	struct dut_trace_rec want[64];
	size_t nwant = 0, k = 0;
	char d[160];

	for (size_t i = 0; i < N(direct_writes); i++) {
		want[nwant++] = (struct dut_trace_rec){ .op = DUT_OP_WRITE, .offset = direct_writes[i].off,
			.len = direct_writes[i].len, .result = (int32_t)direct_writes[i].len };
		want[nwant++] = (struct dut_trace_rec){ .op = i % 2 ? DUT_OP_FDATASYNC : DUT_OP_FSYNC };
	}
	for (size_t i = 0; i < N(direct_reads); i++)
		want[nwant++] = (struct dut_trace_rec){ .op = DUT_OP_READ, .offset = direct_reads[i].off,
			.len = direct_reads[i].len, .result = (int32_t)direct_reads[i].len };

	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];

		if (r->file_id != id || !is_io(r->op))
			continue;
		describe(d, sizeof(d), r);
		if (r->offset == untraced_write.off && r->op == DUT_OP_WRITE) {
			bad("the write issued with \"trace off\" is in the trace: %s", d);
			continue;
		}
		if (k == nwant) {
			bad("exact/direct: unexpected extra record #%zu: %s", k, d);
			k++;
			continue;
		}
		if (k < nwant) {
			const struct dut_trace_rec *w = &want[k];
			bool sync = w->op != DUT_OP_READ && w->op != DUT_OP_WRITE;

			if (r->op != w->op || (!sync && (r->offset != w->offset || r->len != w->len || r->result != w->result)))
				bad("exact/direct record #%zu is %s; expected %s off %" PRIu64 " len %u result %d", k, d,
				    dut_trace_op_name(w->op), w->offset, w->len, w->result);
			if (sync && r->result != 0)
				bad("exact/direct record #%zu (%s): fsync failed", k, d);
			if (r->pid != pid)
				bad("exact/direct record #%zu (%s): pid %u, expected the writer's pid %u", k, d, r->pid, pid);
			if (!sync && !(r->flags & DUT_TRACE_F_DIRECT))
				bad("exact/direct record #%zu (%s): no DIRECT flag on an O_DIRECT file", k, d);
			if (r->flags & DUT_TRACE_F_WRITEBACK)
				bad("exact/direct record #%zu (%s): WRITEBACK flag on an O_DIRECT write", k, d);
			if (r->ts_ns <= t0 || r->ts_ns >= t1)
				bad("exact/direct record #%zu (%s): ts %" PRIu64 " outside its phase markers [%" PRIu64 ", %" PRIu64 "]",
				    k, d, r->ts_ns, t0, t1);
			k++;
		}
	}
	if (k < nwant)
		bad("exact/direct: %zu of %zu expected records are in the trace (next missing: %s off %" PRIu64 " len %u)",
		    k, nwant, dut_trace_op_name(want[k].op), want[k].offset, want[k].len);
	else if (k == nwant)
		printf("trace_exact: exact/direct: all %zu records exactly as issued\n", nwant);
}

static void check_buffered_syscall(const struct dut_trace *t, uint32_t id, uint32_t pid)
{
	struct dut_trace_rec want[16];
	size_t nwant = 0, k = 0;
	char d[160];

	for (size_t i = 0; i < N(buffered_writes); i++)
		want[nwant++] = (struct dut_trace_rec){ .op = DUT_OP_WRITE, .offset = buffered_writes[i].off,
			.len = buffered_writes[i].len, .result = (int32_t)buffered_writes[i].len };
	want[nwant++] = (struct dut_trace_rec){ .op = DUT_OP_FSYNC };
	for (size_t i = 0; i < N(buffered_reads); i++)
		want[nwant++] = (struct dut_trace_rec){ .op = DUT_OP_READ, .offset = buffered_reads[i].off,
			.len = buffered_reads[i].len, .result = (int32_t)buffered_reads[i].len };

	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];
		const struct dut_trace_rec *w = k < nwant ? &want[k] : NULL;

		if (r->file_id != id || !is_io(r->op))
			continue;
		describe(d, sizeof(d), r);
		if (!w)
			bad("exact/buffered (syscall view): unexpected extra record: %s", d);
		else if (r->op != w->op || r->offset != w->offset || r->len != w->len || r->result != w->result ||
			 r->pid != pid)
			bad("exact/buffered (syscall view) record #%zu is %s; expected %s off %" PRIu64 " len %u result %d pid %u",
			    k, d, dut_trace_op_name(w->op), w->offset, w->len, w->result, pid);
		k++;
	}
	if (k < nwant)
		bad("exact/buffered (syscall view): %zu of %zu expected records in the trace", k, nwant);
	else if (k == nwant)
		printf("trace_exact: exact/buffered: all %zu records exactly as issued (syscall view)\n", nwant);
}

static bool covered(const struct io *ranges, size_t n, uint64_t pos, uint32_t round)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = ranges[i].off / round * round;
		uint64_t hi = (ranges[i].off + ranges[i].len + round - 1) / round * round;

		if (pos >= lo && pos < hi)
			return true;
	}
	return false;
}

static void check_buffered_device(const struct dut_trace *t, uint32_t id)
{
	static uint8_t got[BUFFERED_SIZE];
	uint64_t last_write_ts = 0, last_fsync_ts = 0;
	size_t nwrites = 0;
	char d[160];

	memset(got, 0, sizeof(got));
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];

		if (r->file_id != id)
			continue;
		describe(d, sizeof(d), r);
		if (r->op == DUT_OP_FSYNC || r->op == DUT_OP_FDATASYNC)
			last_fsync_ts = r->ts_ns;
		if (r->op != DUT_OP_WRITE)
			continue;
		nwrites++;
		last_write_ts = r->ts_ns;
		if (!(r->flags & DUT_TRACE_F_WRITEBACK))
			bad("exact/buffered (device view): %s has no WRITEBACK flag", d);
		if (r->result != (int32_t)r->len)
			bad("exact/buffered (device view): %s did not complete", d);
		if (r->offset + r->len > BUFFERED_SIZE) {
			bad("exact/buffered (device view): %s goes past the file's end (%u)", d, BUFFERED_SIZE);
			continue;
		}
		for (uint64_t p = r->offset; p < r->offset + r->len; p++) {
			if (!covered(buffered_writes, N(buffered_writes), p, FOLIO_MAX)) {
				bad("exact/buffered (device view): %s writes byte %" PRIu64 ", more than 64 KiB from any written byte", d, p);
				break;
			}
			got[p] = 1;
		}
	}
	for (size_t i = 0; i < N(buffered_writes); i++)
		for (uint64_t p = buffered_writes[i].off; p < buffered_writes[i].off + buffered_writes[i].len; p++)
			if (!got[p]) {
				bad("exact/buffered (device view): byte %" PRIu64 " (of write #%zu) never reached dutfs", p, i);
				break;
			}
	if (nwrites && last_fsync_ts < last_write_ts)
		bad("exact/buffered (device view): no FSYNC after the last writeback WRITE");
	printf("trace_exact: exact/buffered: %zu writeback WRITE records cover the %zu writes (device view)\n",
	       nwrites, N(buffered_writes));
}

static int check(const char *path, const char *view, uint32_t pid)
{
	struct dut_trace *t = NULL;
	struct dut_error err = { "" };
	const struct dut_trace_file *fd_direct, *fd_buf;
	bool syscall = !strcmp(view, "syscall");
	uint64_t ts[NPHASES];
	int rc = dut_trace_load(path, &t, &err);

	if (rc < 0) {
		fprintf(stderr, "trace_exact: cannot read %s: %s (%s)\n", path, err.msg, strerror(-rc));
		return 1;
	}
	printf("trace_exact: %s: %zu records, %zu files, %zu markers, footer %s\n", path, t->nrecs, t->nfiles,
	       t->nmarkers, t->has_footer ? "yes" : "no");
	if (t->truncated || !t->has_footer)
		bad("the trace of a cleanly unmounted dutfs is %s", t->truncated ? "truncated" : "missing its footer");
	else if (t->footer.records_dropped || t->footer.records_written != t->nrecs)
		bad("footer: %" PRIu64 " written, %" PRIu64 " dropped; the file holds %zu records",
		    t->footer.records_written, t->footer.records_dropped, t->nrecs);
	if (!!(t->hdr.flags & DUT_TRACE_HDR_SYSCALL_VIEW) != syscall)
		bad("header flags 0x%x do not say the %s view", t->hdr.flags, view);

	/* Markers: ours, in order. */
	for (size_t i = 0, k = 0; i < t->nmarkers; i++)
		if (k < NPHASES && !strcmp(t->markers[i].label, phase_labels[k]))
			k++;
	for (size_t k = 0; k < NPHASES; k++) {
		ts[k] = marker_ts(t, phase_labels[k]);
		if (!ts[k])
			bad("marker \"%s\" is not in the trace", phase_labels[k]);
		else if (k && ts[k] <= ts[k - 1])
			bad("marker \"%s\" is not after \"%s\"", phase_labels[k], phase_labels[k - 1]);
	}

	fd_direct = file_named(t, "exact/direct");
	fd_buf = file_named(t, "exact/buffered");
	if (!fd_direct || !fd_buf)
		bad("the file table lacks %s", !fd_direct ? "exact/direct" : "exact/buffered");
	if (fd_direct)
		check_direct(t, fd_direct->id, pid, ts[0], ts[1]);
	if (fd_buf && syscall)
		check_buffered_syscall(t, fd_buf->id, pid);
	else if (fd_buf)
		check_buffered_device(t, fd_buf->id);
	if (fd_buf)
		for (size_t i = 0; i < t->nrecs; i++)
			if (t->recs[i].file_id == fd_buf->id && is_io(t->recs[i].op) &&
			    (t->recs[i].ts_ns < ts[2] || (ts[3] && t->recs[i].ts_ns > ts[3]))) {
				bad("exact/buffered: a record lies outside its phase markers");
				break;
			}
	dut_trace_free(t);
	if (failures)
		fprintf(stderr, "trace_exact: %d check(s) failed\n", failures);
	else
		printf("trace_exact: PASS (%s view)\n", view);
	return failures ? 1 : 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Walk the frames (docs/trace-format.md) to find where to cut. */
static int cut(const char *in, const char *out)
{
	static uint8_t buf[64 << 20];
	FILE *f = fopen(in, "rb");
	size_t len, off = DUT_TRACE_HEADER_SIZE;

	if (!f) {
		fprintf(stderr, "trace_exact: open %s: %s\n", in, strerror(errno));
		return 1;
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 8 <= len) {
		uint32_t type = le32(buf + off), plen = le32(buf + off + 4);

		/* 2.0 (CRECORDS): a record's bytes are not known without decoding; cut mid-payload */
		bool compact = type == DUT_TRACE_FRAME_CRECORDS && plen > 8 && le32(buf + off + 8) >= 2;

		if ((type == DUT_TRACE_FRAME_RECORDS && plen >= 2 * DUT_TRACE_REC_SIZE) || compact) {
			size_t at = compact ? off + 8 + plen / 2 : off + 8 + DUT_TRACE_REC_SIZE + 20;

			f = fopen(out, "wb");
			if (!f || fwrite(buf, 1, at, f) != at || fclose(f)) {
				fprintf(stderr, "trace_exact: writing %s failed\n", out);
				return 1;
			}
			printf("%zu %zu\n", at, off);
			return 0;
		}
		off += 8 + ((plen + 7u) & ~7u);
	}
	fprintf(stderr, "trace_exact: %s has no RECORDS or CRECORDS frame with two records\n", in);
	return 1;
}

static int info(const char *path)
{
	struct dut_trace *t = NULL;
	struct dut_error err = { "" };
	int rc = dut_trace_load(path, &t, &err);

	if (rc < 0) {
		printf("error: %s (%s)\n", err.msg, strerror(-rc));
		return 1;
	}
	printf("records %zu files %zu markers %zu footer %s truncated %s valid_bytes %" PRIu64 "\n",
	       t->nrecs, t->nfiles, t->nmarkers, t->has_footer ? "yes" : "no", t->truncated ? "yes" : "no",
	       t->valid_bytes);
	if (err.msg[0])
		printf("message: %s\n", err.msg);
	dut_trace_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "cut"))
		return cut(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "info"))
		return info(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "run"))
		return run(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 10));
	fprintf(stderr, "usage: trace_exact run MNT\n       trace_exact check TRACE device|syscall PID\n"
		"       trace_exact cut TRACE OUT\n       trace_exact info TRACE\n");
	return 2;
}
