/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader: a CRECORDS frame decoded whole into an array when the
 * merge splits it (trace_stream.c splits the array), so the merge reads its
 * records instead of decoding them again.  Pure.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"

int dut_trace_recbuf_decode(const uint8_t *base, const uint8_t *q, const uint8_t *end, uint32_t n,
			    size_t bytes, struct recbuf **ret)
{
	struct recbuf *rb = malloc(bytes);
	struct dut_trace_cstate st;

	if (!rb)
		return -ENOMEM;
	rb->refs = 1;
	rb->bytes = bytes;
	rb->offs = (uint64_t *)(void *)&rb->v[n];
	dut_trace_cstate_init(&st);
	for (uint32_t i = 0; i < n; i++) {
		rb->offs[i] = (uint64_t)(q - base);
		if (dut_trace_crec_decode_hot(&q, end, &st) < 0) {
			free(rb);
			return -EBADMSG;
		}
		rb->v[i] = st.prev;
	}
	*ret = rb;
	return 0;
}
