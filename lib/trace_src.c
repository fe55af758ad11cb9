/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parser's bytes through a read hook (trace_src.h).  Pure. */
#include <errno.h>
#include <stdlib.h>

#include "lib/trace_src.h"

const uint8_t *trace_src_fill(struct trace_src *s, uint64_t off, size_t n)
{
	size_t want = s->chunk > n ? s->chunk : n;
	int r;

	if (off > s->len || n > s->len - off)
		return NULL; /* the callers check lengths first: cannot happen */
	if (want > s->len - off)
		want = s->len - off;
	if (want > s->win_cap) {
		uint8_t *w = realloc(s->win, want ? want : 1);

		if (!w) {
			s->err = -ENOMEM;
			return NULL;
		}
		s->win = w;
		s->win_cap = want;
	}
	s->win_len = 0;
	r = s->rd(s->ctx, off, s->win, want);
	if (r < 0) {
		s->err = r;
		return NULL;
	}
	s->win_off = off;
	s->win_len = want;
	return s->win;
}

void trace_src_free(struct trace_src *s)
{
	free(s->win);
	s->win = NULL;
	s->win_cap = s->win_len = 0;
}
