/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to trace_reader.c: where the parser's bytes come from.  Either
 * the whole trace in memory (a mapping, a test's buffer), or a read hook
 * that fills a window of it, a chunk at a time: the streaming reader's
 * scan reads the file so (trace_stream_linux.c: pread), because mapping
 * the pages in and dropping them again costs more here than copying them
 * (docs/trace-format.md "Streaming").  Pure: the hook does the I/O.
 */
#ifndef DUTLAB_TRACE_SRC_H
#define DUTLAB_TRACE_SRC_H

#include <stddef.h>
#include <stdint.h>

struct trace_src {
	const uint8_t *buf;          /* the whole trace; NULL: read through rd */
	size_t len;                  /* the trace's length */
	/* reads exactly len bytes at off into buf: 0 or -errno */
	int (*rd)(void *ctx, uint64_t off, void *buf, size_t len);
	void *ctx;
	size_t chunk;                /* bytes a read asks for */
	uint8_t *win;                /* bytes [win_off, win_off + win_len) of the trace */
	size_t win_cap, win_len;
	uint64_t win_off;
	int err;                     /* the read's error (once it failed) */
};

/* Read the window so that it holds [off, off + n): NULL when the read fails (s->err). */
const uint8_t *trace_src_fill(struct trace_src *s, uint64_t off, size_t n);
void trace_src_free(struct trace_src *s);

/* Bytes [off, off + n) of the trace (off + n <= len), valid until the next call. */
static inline const uint8_t *trace_src_at(struct trace_src *s, uint64_t off, size_t n)
{
	if (s->buf)
		return s->buf + off;
	if (off >= s->win_off && off - s->win_off + n <= s->win_len)
		return s->win + (off - s->win_off);
	return trace_src_fill(s, off, n);
}

#endif
