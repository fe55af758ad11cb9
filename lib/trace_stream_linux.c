/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader over a file: map it read-only and drop the pages
 * behind each pass (MADV_DONTNEED on a private read-only mapping only
 * unmaps them; the page cache keeps them), so the reader's resident size
 * does not grow with the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_format.h"

struct mapping {
	uint8_t *base;
	size_t len;
	size_t page;
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

static void map_unmap(void *ctx)
{
	struct mapping *m = ctx;

	if (m->base)
		munmap(m->base, m->len);
	free(m);
}

int dut_trace_stream_open(const char *path, struct dut_trace_stream **ret, struct dut_error *err)
{
	struct dut_trace_stream_hooks hooks = { .release = map_release, .unmap = map_unmap };
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
			       .page = (size_t)sysconf(_SC_PAGESIZE) };
	hooks.ctx = m;
	return dut_trace_stream_new(base, (size_t)st.st_size, &hooks, ret, err);
}
