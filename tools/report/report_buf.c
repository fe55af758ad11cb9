/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_buf.h"

static bool grow(struct rbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *s;

	if (b->oom)
		return false;
	if (b->len + need + 1 <= b->cap)
		return true;
	while (cap < b->len + need + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void rbuf_printf(struct rbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rbuf_puts(struct rbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (!grow(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

char *rbuf_take(struct rbuf *b)
{
	char *s;

	if (b->oom || (!b->s && !grow(b, 0))) {
		rbuf_free(b);
		return NULL;
	}
	b->s[b->len] = 0;
	s = b->s;
	*b = (struct rbuf){ 0 };
	return s;
}

void rbuf_free(struct rbuf *b)
{
	free(b->s);
	*b = (struct rbuf){ 0 };
}
