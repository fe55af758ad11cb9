/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Traces built frame by frame for the streaming reader's tests: a record's
 * lat_ns is its index in the file, so a test knows which record it got.
 */
#ifndef DUT_TESTS_TRACE_BUILD_H
#define DUT_TESTS_TRACE_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_format.h"
#include "tests/cu_main.h"

struct tbuf {
	uint8_t *p;
	size_t len, cap;
};

static inline void put(struct tbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline struct dut_trace_rec rec_of(uint64_t ts, uint64_t idx)
{
	return (struct dut_trace_rec){ .ts_ns = ts, .lat_ns = idx, .offset = idx * 4096, .len = 4096,
				       .file_id = 1 + (uint32_t)(idx % 3), .pid = 100 + (uint32_t)(idx % 5),
				       .op = DUT_OP_READ, .dutfs_ns = 7 };
}

/*
 * One RECORDS (or CRECORDS) frame of n records at times ts[], numbered from
 * *idx; span: a CRECORDS frame after its CSPAN frame (2.1).
 */
static inline void put_frame_span(struct tbuf *b, bool compact, bool span, const uint64_t *ts, size_t n,
				  uint64_t *idx)
{
	if (!compact) {
		uint8_t h[DUT_TRACE_FRAME_HDR_SIZE], r[DUT_TRACE_REC_SIZE];

		dut_trace_frame_hdr(h, DUT_TRACE_FRAME_RECORDS, (uint32_t)(n * DUT_TRACE_REC_SIZE));
		put(b, h, sizeof(h));
		for (size_t i = 0; i < n; i++) {
			struct dut_trace_rec x = rec_of(ts[i], (*idx)++);

			dut_trace_rec_encode(&x, r);
			put(b, r, sizeof(r));
		}
		return;
	}
	uint8_t *recs = malloc(n * DUT_TRACE_CREC_MAX + 8), h[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED];
	static const uint8_t zero[8];
	struct dut_trace_cstate st;
	size_t len = 0, pad;

	CU_ASSERT_PTR_NOT_NULL_FATAL(recs);
	if (span) {
		struct dut_trace_cspan sp = { UINT64_MAX, 0 };
		uint8_t f[DUT_TRACE_CSPAN_FRAME];

		for (size_t i = 0; i < n; i++) {
			sp.min_ts = ts[i] < sp.min_ts ? ts[i] : sp.min_ts;
			sp.max_ts = ts[i] > sp.max_ts ? ts[i] : sp.max_ts;
		}
		dut_trace_frame_cspan(&sp, f);
		put(b, f, sizeof(f));
	}
	dut_trace_cstate_init(&st);
	for (size_t i = 0; i < n; i++) {
		struct dut_trace_rec x = rec_of(ts[i], (*idx)++);

		len += dut_trace_crec_encode(&st, &x, recs + len);
	}
	pad = dut_trace_cframe_hdr(h, (uint32_t)n, len);
	put(b, h, sizeof(h));
	put(b, recs, len);
	put(b, zero, pad);
	free(recs);
}

static inline void put_frame(struct tbuf *b, bool compact, const uint64_t *ts, size_t n, uint64_t *idx)
{
	put_frame_span(b, compact, false, ts, n, idx);
}

/* A frame of a type no reader knows (skipped), so that the next frame starts at byte off. */
static inline void put_filler(struct tbuf *b, size_t off)
{
	uint8_t h[DUT_TRACE_FRAME_HDR_SIZE];
	uint8_t *z;

	CU_ASSERT_FATAL(off >= b->len + sizeof(h) && (off - b->len) % 8 == 0);
	z = calloc(1, off - b->len - sizeof(h) + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	dut_trace_frame_hdr(h, 99, (uint32_t)(off - b->len - sizeof(h)));
	put(b, h, sizeof(h));
	put(b, z, off - b->len);
	free(z);
}

static inline void put_header(struct tbuf *b, bool compact)
{
	struct dut_trace_header h = { .version_major = compact ? DUT_TRACE_VERSION_MAJOR : 1,
				      .version_minor = compact ? DUT_TRACE_VERSION_MINOR : 1,
				      .start_monotonic_ns = 1000 };
	uint8_t out[DUT_TRACE_HEADER_SIZE];

	dut_trace_header_encode(&h, out);
	put(b, out, sizeof(out));
}

static inline void put_footer(struct tbuf *b, uint64_t nrecs)
{
	uint8_t f[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE];

	dut_trace_frame_footer(&(struct dut_trace_footer){ .records_written = nrecs }, f);
	put(b, f, sizeof(f));
}

#endif
