/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compact record decoder's hot path (trace_compact.c has the encoder
 * and the checked decoder; docs/trace-format.md "CRECORDS" the layout).
 * Pure, inline: the scan (2.0 frames only), the merge's split and its
 * advance decode every record of a compact trace, most of the reader's time.
 *
 * dut_trace_crec_decode_hot() accepts and rejects exactly what
 * dut_trace_crec_decode() does.  While at least DUT_TRACE_CDEC_SLACK bytes
 * are left before end, no varint of a record can reach end (a record that
 * decodes has at most 10 varints of at most 10 bytes), so its varints are
 * read without checking end, each from one 8-byte load; nearer the end the
 * checked decoder runs.
 */
#ifndef DUTLAB_TRACE_CDEC_H
#define DUTLAB_TRACE_CDEC_H

#include <errno.h>
#include <stdint.h>

#include "lib/trace_format.h"

/* The ctrl byte (the same bits as trace_compact.c's C_*). */
#define DUT_TRACE_CC_FILE     0x01u
#define DUT_TRACE_CC_PID      0x02u
#define DUT_TRACE_CC_LEN      0x04u
#define DUT_TRACE_CC_OPFL     0x08u
#define DUT_TRACE_CC_RES_MASK 0x30u
#define DUT_TRACE_CC_RES_LEN  0x00u
#define DUT_TRACE_CC_RES_ZERO 0x10u
#define DUT_TRACE_CC_DUTFS    0x40u
#define DUT_TRACE_CC_RESERVED 0x80u

/* 1 + 10 * 10 bytes of varints, plus 8 for the last one's load, rounded up */
#define DUT_TRACE_CDEC_SLACK 128

/*
 * One varint at *pp, at least 18 bytes before the buffer's end: -EBADMSG
 * past 64 bits (10 bytes, or a 10th byte above 1), like get_var().
 */
static inline __attribute__((always_inline)) int dut_trace_cdec_var(const uint8_t **pp, uint64_t *ret)
{
	const uint8_t *p = *pp;
	uint64_t w, m, x;

	if (__builtin_expect(p[0] < 0x80, 1)) {
		*ret = p[0];
		*pp = p + 1;
		return 0;
	}
	w = dut_le64_get(p);
	m = ~w & 0x8080808080808080ull; /* the bytes that end a varint */
	if (__builtin_expect(m != 0, 1)) {
		unsigned bits = (unsigned)__builtin_ctzll(m) + 1; /* 8 * bytes */

		x = bits == 64 ? w : w & ((1ull << bits) - 1);
		x &= 0x7f7f7f7f7f7f7f7full;
		x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
		x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
		x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
		*ret = x;
		*pp = p + bits / 8;
		return 0;
	}
	/* 9 or 10 bytes: the first 8 carry 56 bits */
	x = w & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
	x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
	x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
	x |= (uint64_t)(p[8] & 0x7f) << 56;
	if (!(p[8] & 0x80)) {
		*ret = x;
		*pp = p + 9;
		return 0;
	}
	if (p[9] > 1)
		return -EBADMSG;
	*ret = x | (uint64_t)p[9] << 63;
	*pp = p + 10;
	return 0;
}

static inline int dut_trace_cdec_var32(const uint8_t **pp, uint32_t max, uint32_t *ret)
{
	uint64_t v;

	if (dut_trace_cdec_var(pp, &v) < 0 || v > max)
		return -EBADMSG;
	*ret = (uint32_t)v;
	return 0;
}

static inline void dut_trace_cdec_pids_front(uint32_t *pids, unsigned i, uint32_t pid)
{
	for (; i > 0; i--)
		pids[i] = pids[i - 1];
	pids[0] = pid;
}

/* The record at *pp, at least DUT_TRACE_CDEC_SLACK bytes before the end. */
static inline __attribute__((always_inline)) int dut_trace_cdec_rec(const uint8_t **pp,
								     struct dut_trace_cstate *st)
{
	struct dut_trace_rec *rec = &st->prev;
	const uint8_t *p = *pp;
	uint64_t v;
	uint32_t u;
	unsigned c = *p++;

	if ((c & DUT_TRACE_CC_RESERVED) || (c & DUT_TRACE_CC_RES_MASK) == DUT_TRACE_CC_RES_MASK)
		return -EBADMSG;
	if (dut_trace_cdec_var(&p, &v) < 0)
		return -EBADMSG;
	rec->ts_ns += (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
	if (dut_trace_cdec_var(&p, &v) < 0)
		return -EBADMSG;
	rec->offset += rec->len + ((v >> 1) ^ (uint64_t)-(int64_t)(v & 1));
	if (dut_trace_cdec_var(&p, &rec->lat_ns) < 0)
		return -EBADMSG;
	if (c & (DUT_TRACE_CC_FILE | DUT_TRACE_CC_PID | DUT_TRACE_CC_LEN | DUT_TRACE_CC_OPFL)) {
		if ((c & DUT_TRACE_CC_FILE) && dut_trace_cdec_var32(&p, UINT32_MAX, &rec->file_id) < 0)
			return -EBADMSG;
		if (c & DUT_TRACE_CC_PID) {
			if (dut_trace_cdec_var(&p, &v) < 0 || v == 0 ||
			    v > (uint64_t)UINT32_MAX + DUT_TRACE_CPIDS)
				return -EBADMSG;
			if (v < DUT_TRACE_CPIDS) {
				rec->pid = st->pids[v];
				dut_trace_cdec_pids_front(st->pids, (unsigned)v, rec->pid);
			} else {
				rec->pid = (uint32_t)(v - DUT_TRACE_CPIDS);
				dut_trace_cdec_pids_front(st->pids, DUT_TRACE_CPIDS - 1, rec->pid);
			}
		}
		if ((c & DUT_TRACE_CC_LEN) && dut_trace_cdec_var32(&p, UINT32_MAX, &rec->len) < 0)
			return -EBADMSG;
		if (c & DUT_TRACE_CC_OPFL) {
			if (dut_trace_cdec_var32(&p, UINT16_MAX, &u) < 0)
				return -EBADMSG;
			rec->op = (uint16_t)u;
			if (dut_trace_cdec_var32(&p, UINT16_MAX, &u) < 0)
				return -EBADMSG;
			rec->flags = (uint16_t)u;
		}
	}
	switch (c & DUT_TRACE_CC_RES_MASK) {
	case DUT_TRACE_CC_RES_LEN:
		rec->result = (int32_t)rec->len;
		break;
	case DUT_TRACE_CC_RES_ZERO:
		rec->result = 0;
		break;
	default:
		if (dut_trace_cdec_var32(&p, UINT32_MAX, &u) < 0)
			return -EBADMSG;
		rec->result = (int32_t)((u >> 1) ^ (uint32_t)-(int32_t)(u & 1));
		break;
	}
	rec->dutfs_ns = 0;
	if ((c & DUT_TRACE_CC_DUTFS) && dut_trace_cdec_var32(&p, UINT32_MAX, &rec->dutfs_ns) < 0)
		return -EBADMSG;
	*pp = p;
	return 0;
}

/* dut_trace_crec_decode(), inline where the bytes allow. */
static inline __attribute__((always_inline)) int dut_trace_crec_decode_hot(const uint8_t **pp, const uint8_t *end,
					    struct dut_trace_cstate *st)
{
	if (__builtin_expect(end - *pp >= DUT_TRACE_CDEC_SLACK, 1))
		return dut_trace_cdec_rec(pp, st);
	return dut_trace_crec_decode(pp, end, st);
}

#endif
