/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader: a CRECORDS frame decoded whole into an array when the
 * merge splits it (trace_stream.c splits the array), so the merge reads its
 * records instead of decoding them again; freed arrays are kept in a small
 * pool for the next frames.  A checked decode: the scan takes a 2.1 frame
 * on its CSPAN, so this is where its damage shows.  Pure.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"

/* A buffer of at least bytes: the first large enough in the pool, or a new one. */
static struct recbuf *recbuf_get(struct dut_trace_stream *s, size_t bytes)
{
	struct recbuf **pp = &s->rb_pool, *rb;

	for (; *pp; pp = &(*pp)->next_free) {
		if ((*pp)->cap_bytes >= bytes) {
			rb = *pp;
			*pp = rb->next_free;
			s->rb_pool_bytes -= rb->cap_bytes;
			return rb;
		}
	}
	/* none fits: make room for a new one (the arrays in use and kept stay within the cap) */
	while (s->rb_pool && s->decoded_bytes + s->rb_pool_bytes + bytes > s->decoded_cap) {
		rb = s->rb_pool;
		s->rb_pool = rb->next_free;
		s->rb_pool_bytes -= rb->cap_bytes;
		free(rb);
	}
	rb = malloc(bytes);
	if (rb)
		rb->cap_bytes = bytes;
	return rb;
}

void dut_trace_recbuf_recycle(struct dut_trace_stream *s, struct recbuf *rb)
{
	if (s->decoded_bytes + s->rb_pool_bytes + rb->cap_bytes > s->decoded_cap) {
		free(rb);
		return;
	}
	rb->next_free = s->rb_pool;
	s->rb_pool = rb;
	s->rb_pool_bytes += rb->cap_bytes;
}

void dut_trace_recbuf_pool_free(struct dut_trace_stream *s)
{
	while (s->rb_pool) {
		struct recbuf *rb = s->rb_pool;

		s->rb_pool = rb->next_free;
		free(rb);
	}
	s->rb_pool_bytes = 0;
}

int dut_trace_recbuf_decode(struct dut_trace_stream *s, const uint8_t *q, const uint8_t *end,
			    uint32_t n, const struct dut_trace_cspan *sp, size_t bytes, struct recbuf **ret)
{
	struct recbuf *rb = recbuf_get(s, bytes);
	struct dut_trace_cstate st;
	uint64_t min_ts = UINT64_MAX, max_ts = 0;

	if (!rb)
		return -ENOMEM;
	rb->refs = 1;
	rb->bytes = bytes;
	rb->offs = (uint64_t *)(void *)&rb->v[n];
	dut_trace_cstate_init(&st);
	for (uint32_t i = 0; i < n; i++) {
		rb->offs[i] = (uint64_t)(q - s->buf);
		if (dut_trace_crec_decode_hot(&q, end, &st) < 0) {
			dut_trace_recbuf_recycle(s, rb);
			return -EBADMSG;
		}
		rb->v[i] = st.prev;
		if (st.prev.ts_ns < min_ts)
			min_ts = st.prev.ts_ns;
		if (st.prev.ts_ns > max_ts)
			max_ts = st.prev.ts_ns;
	}
	if (!dut_trace_cframe_decoded_ok(q, end, min_ts, max_ts, sp)) {
		dut_trace_recbuf_recycle(s, rb);
		return -EBADMSG;
	}
	*ret = rb;
	return 0;
}
