/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growing string for the report's text outputs (Markdown, HTML, gnuplot
 * scripts, data files).  Out of memory is sticky: later appends do nothing
 * and rbuf_take() returns NULL, so builders check once at the end.
 */
#ifndef DUTLAB_REPORT_BUF_H
#define DUTLAB_REPORT_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct rbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void rbuf_printf(struct rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rbuf_puts(struct rbuf *b, const char *s);
/* The text (malloc'ed, "" when nothing was added), or NULL after an allocation failure. */
char *rbuf_take(struct rbuf *b);
void rbuf_free(struct rbuf *b);

#endif
