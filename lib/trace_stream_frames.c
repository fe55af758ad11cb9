/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader: a CRECORDS frame decoded whole into an array when the
 * merge splits it (trace_stream.c splits the array), so the merge reads its
 * records instead of decoding them again.  A checked decode: the scan
 * takes a 2.1 frame on its CSPAN, so this is where its damage shows.  Pure.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"

int dut_trace_recbuf_decode(const uint8_t *base, const uint8_t *q, const uint8_t *end, uint32_t n,
			    const struct dut_trace_cspan *sp, size_t bytes, struct recbuf **ret)
{
	struct recbuf *rb = malloc(bytes);
	struct dut_trace_cstate st;
	uint64_t min_ts = UINT64_MAX, max_ts = 0;

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
		if (st.prev.ts_ns < min_ts)
			min_ts = st.prev.ts_ns;
		if (st.prev.ts_ns > max_ts)
			max_ts = st.prev.ts_ns;
	}
	if (!dut_trace_cframe_decoded_ok(q, end, min_ts, max_ts, sp)) {
		free(rb);
		return -EBADMSG;
	}
	*ret = rb;
	return 0;
}
