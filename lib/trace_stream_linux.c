/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader over a file: map it read-only and drop the pages
 * behind each pass (MADV_DONTNEED on a private read-only mapping only
 * unmaps them; the page cache keeps them), so the reader's resident size
 * does not grow with the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/trace.h"
#include "lib/trace_format.h"

/* The side file grows 1 to 3 MB an hour (docs/trace-format.md): 1 GiB is two weeks and more. */
#define SECONDS_MAX_BYTES ((size_t)1 << 30)
#define SECONDS_MAX_TEXT "1 GiB"

struct mapping {
	uint8_t *base;
	size_t len;
	size_t page;
	int fd;                        /* the scan reads through it (map_read) */
};

static void map_release(void *ctx, size_t off, size_t len)
{
	struct mapping *m = ctx;
	uintptr_t lo = ((uintptr_t)m->base + off + m->page - 1) & ~(uintptr_t)(m->page - 1);
	uintptr_t hi = ((uintptr_t)m->base + off + len) & ~(uintptr_t)(m->page - 1);

	if (off + len > m->len || hi <= lo)
		return;
	(void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* only memory: failing costs nothing */
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/*
 * Map the pages of [off, off + len) in one call: under this machine's
 * hypervisor a page fault costs several microseconds, and the kernel maps
 * 16 pages per fault.  Older kernels say EINVAL: the pages then fault in.
 */
static void map_prefault(void *ctx, size_t off, size_t len)
{
	struct mapping *m = ctx;
	uintptr_t lo = ((uintptr_t)m->base + off) & ~(uintptr_t)(m->page - 1);
	uintptr_t hi;

	if (off >= m->len)
		return;
	if (len > m->len - off)
		len = m->len - off;
	hi = (uintptr_t)m->base + off + len;
	(void)madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
}

/*
 * The scan reads the file instead of its mapping: it looks at each frame
 * once, and copying the bytes costs less here than mapping the pages in
 * and handing them back (45 against 92-110 ms for 177 MB).
 */
static int map_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mapping *m = ctx;
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pread(m->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* shorter than when it was mapped */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void map_unmap(void *ctx)
{
	struct mapping *m = ctx;

	if (m->base)
		munmap(m->base, m->len);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

static int stream_open_one(const char *path, struct dut_trace_stream **ret, struct dut_error *err)
{
	struct dut_trace_stream_hooks hooks = { .release = map_release, .prefault = map_prefault, .read = map_read,
						   .unmap = map_unmap };
	_cleanup_close_ int fd = -1;
	struct mapping *m;
	struct stat st;
	void *base;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		dut_error_set(err, "cannot open trace %s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		dut_error_set(err, "cannot stat trace %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		dut_error_set(err, "trace %s is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size == 0)
		return dut_trace_stream_new(NULL, 0, NULL, ret, err);
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		r = -errno;
		dut_error_set(err, "cannot map trace %s: %s", path, strerror(-r));
		return r;
	}
	(void)madvise(base, (size_t)st.st_size, MADV_SEQUENTIAL);
	m = malloc(sizeof(*m));
	if (!m) {
		munmap(base, (size_t)st.st_size);
		return -ENOMEM;
	}
	*m = (struct mapping){ .base = base, .len = (size_t)st.st_size,
			       .page = (size_t)sysconf(_SC_PAGESIZE), .fd = TAKE_FD(fd) };
	hooks.ctx = m;
	r = dut_trace_stream_new(base, (size_t)st.st_size, &hooks, ret, err);
	if (r >= 0) {
		/* only the scan reads through it: a rotated set of 64 segments keeps no 64 descriptors */
		close(m->fd);
		m->fd = -1;
	}
	return r;
}

int dut_trace_seconds_load(const char *path, struct dut_trace_seconds_file **ret,
			   struct dut_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r;

	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			dut_error_set(err, "cannot open the side file %s: %s", path, strerror(-r));
		return r;
	}
	if ((r = dut_read_fd_alloc(fd, SECONDS_MAX_BYTES, 0, &buf, &len)) < 0) {
		dut_error_set(err, "cannot read the side file %s: %s", path,
			      r == -EFBIG ? "larger than " SECONDS_MAX_TEXT : strerror(-r));
		return r;
	}
	r = dut_trace_seconds_parse(buf, len, ret, err);
	if (r == -EBADMSG) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		dut_error_set(err, "%s: %s", path, msg);
	}
	return r;
}

static void parts_close(struct dut_trace_stream **parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dut_trace_stream_close(parts[i]);
	free(parts);
}

/* Is older (read from PATH.<seq>) the segment seq of the same run as newest? */
static bool same_run(const struct dut_trace *older, const struct dut_trace *newest, uint32_t seq)
{
	return older->segmented && older->seg.seq == seq &&
	       older->hdr.start_monotonic_ns == newest->hdr.start_monotonic_ns &&
	       older->hdr.start_realtime_ns == newest->hdr.start_realtime_ns;
}

/*
 * PATH, and when it is the newest segment of a rotated trace, the older
 * segments still there (PATH.<seq-1>, PATH.<seq-2>, ... down to the first
 * that is missing or of another run) and the side file PATH.seconds.
 */
int dut_trace_stream_open(const char *path, struct dut_trace_stream **ret, struct dut_error *err)
{
	struct dut_trace_stream *newest, **parts;
	struct dut_trace_seconds_file *sec = NULL;
	const struct dut_trace *nm;
	size_t n = 1, plen = strlen(path) + 32;
	_cleanup_free_ char *p = malloc(plen);
	struct dut_error warn = { 0 };
	uint32_t keep;
	int r;

	if (!p)
		return -ENOMEM;
	r = stream_open_one(path, &newest, err);
	if (r < 0)
		return r;
	nm = dut_trace_stream_meta(newest);
	if (!nm->segmented) {
		*ret = newest;
		return 0;
	}
	if (nm->truncated)
		warn = *err; /* the newest segment's truncation warning */
	keep = nm->seg.keep < DUT_TRACE_SEGMENTS_MAX ? nm->seg.keep : DUT_TRACE_SEGMENTS_MAX;
	parts = calloc(keep ? keep : 1, sizeof(*parts));
	if (!parts) {
		dut_trace_stream_close(newest);
		return -ENOMEM;
	}
	parts[0] = newest; /* newest first here; reversed below */
	for (uint32_t seq = nm->seg.seq; seq > 1 && n < keep; n++) {
		struct dut_trace_stream *old;
		struct dut_error e2 = { 0 };

		snprintf(p, plen, "%s.%" PRIu32, path, --seq);
		if (access(p, F_OK) < 0)
			break;
		r = stream_open_one(p, &old, &e2);
		if (r < 0) {
			*err = e2;
			parts_close(parts, n);
			return r;
		}
		if (!same_run(dut_trace_stream_meta(old), nm, seq)) {
			dut_trace_stream_close(old);
			break;
		}
		parts[n] = old;
	}
	for (size_t i = 0; i < n / 2; i++) {
		struct dut_trace_stream *t = parts[i];

		parts[i] = parts[n - 1 - i];
		parts[n - 1 - i] = t;
	}
	snprintf(p, plen, "%s%s", path, DUT_TRACE_SECONDS_SUFFIX);
	r = dut_trace_seconds_load(p, &sec, err);
	if (r < 0 && r != -ENOENT) {
		parts_close(parts, n);
		return r;
	}
	if (sec && sec->start_monotonic_ns != nm->hdr.start_monotonic_ns) {
		dut_trace_seconds_file_free(sec); /* another run's */
		sec = NULL;
	}
	*err = warn;
	return dut_trace_stream_set(parts, n, sec, ret);
}
