/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compact RECORDS frames (trace format 2.0, docs/trace-format.md "CRECORDS").
 * Pure code.  A frame holds one writer thread's run of records, each
 * encoded against the one before it in the frame (the first against an
 * all-zero record), so a frame decodes on its own:
 *
 *   ctrl byte, then LEB128 varints:
 *     zigzag(ts_ns - prev.ts_ns)                  (mod 2^64: any order)
 *     zigzag(offset - (prev.offset + prev.len))   (a sequential stream: 0)
 *     lat_ns
 *     file_id        if ctrl & FILE   (else prev's)
 *     pid            if ctrl & PID    (else prev's): 1..7 names the pid of
 *                    that place in the list of recent pids, v >= 8 is the
 *                    pid v - 8 (the list then forgets its last one)
 *     len            if ctrl & LEN    (else prev's)
 *     op, flags      if ctrl & OPFL   (else prev's)
 *     zigzag(result) if the result kind is EXPLICIT (else = len, or 0)
 *     dutfs_ns       if ctrl & DUTFS  (else 0)
 *
 * Every field round-trips whatever its value: differences wrap modulo
 * 2^64, and a field that does not fit its width is corruption.
 */
#include <errno.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"

#define C_FILE   0x01u
#define C_PID    0x02u
#define C_LEN    0x04u
#define C_OPFL   0x08u
#define C_RES_MASK 0x30u
#define C_RES_LEN  0x00u   /* result == (int32_t)len */
#define C_RES_ZERO 0x10u   /* result == 0 */
#define C_RES_EXPL 0x20u   /* zigzag varint follows */
#define C_DUTFS  0x40u
#define C_RESERVED 0x80u

static inline uint64_t zz64(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzz64(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static inline uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* One varint at *pp; -EBADMSG when it runs past end or past 64 bits. */
static inline int get_var(const uint8_t **pp, const uint8_t *end, uint64_t *ret)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	/* most fields are one or two bytes: the reader's hot path */
	if (__builtin_expect(end - p >= 2, 1)) {
		if (p[0] < 0x80) {
			*ret = p[0];
			*pp = p + 1;
			return 0;
		}
		if (p[1] < 0x80) {
			*ret = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			*pp = p + 2;
			return 0;
		}
	}

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (p == end)
			return -EBADMSG;
		b = *p++;
		if (shift == 63 && b > 1)
			return -EBADMSG;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

static inline int get_var32(const uint8_t **pp, const uint8_t *end, uint32_t max, uint32_t *ret)
{
	uint64_t v;
	int r = get_var(pp, end, &v);

	if (r < 0 || v > max)
		return -EBADMSG;
	*ret = (uint32_t)v;
	return 0;
}

/* Move the pid at place i (DUT_TRACE_CPIDS - 1 for a new one) to the front. */
static inline void pids_front(uint32_t *pids, unsigned i, uint32_t pid)
{
	for (; i > 0; i--) /* at most 7: no call to memmove */
		pids[i] = pids[i - 1];
	pids[0] = pid;
}

size_t dut_trace_crec_encode(struct dut_trace_cstate *st, const struct dut_trace_rec *r,
			     uint8_t *out)
{
	const struct dut_trace_rec *prev = &st->prev;
	uint8_t *p = out + 1;
	unsigned c = 0;

	p = put_var(p, zz64(r->ts_ns - prev->ts_ns));
	p = put_var(p, zz64(r->offset - (prev->offset + prev->len)));
	p = put_var(p, r->lat_ns);
	if (r->file_id != prev->file_id) {
		c |= C_FILE;
		p = put_var(p, r->file_id);
	}
	if (r->pid != prev->pid) {
		unsigned i = 1;

		while (i < DUT_TRACE_CPIDS && st->pids[i] != r->pid)
			i++;
		c |= C_PID;
		if (i < DUT_TRACE_CPIDS) {
			p = put_var(p, i);
		} else {
			i = DUT_TRACE_CPIDS - 1;
			p = put_var(p, (uint64_t)r->pid + DUT_TRACE_CPIDS);
		}
		pids_front(st->pids, i, r->pid);
	}
	if (r->len != prev->len) {
		c |= C_LEN;
		p = put_var(p, r->len);
	}
	if (r->op != prev->op || r->flags != prev->flags) {
		c |= C_OPFL;
		p = put_var(p, r->op);
		p = put_var(p, r->flags);
	}
	if (r->result == (int32_t)r->len) {
		c |= C_RES_LEN;
	} else if (r->result == 0) {
		c |= C_RES_ZERO;
	} else {
		uint32_t u = (uint32_t)r->result;

		c |= C_RES_EXPL;
		p = put_var(p, (uint32_t)((u << 1) ^ (uint32_t)((int32_t)u >> 31)));
	}
	if (r->dutfs_ns) {
		c |= C_DUTFS;
		p = put_var(p, r->dutfs_ns);
	}
	out[0] = (uint8_t)c;
	st->prev = *r;
	return (size_t)(p - out);
}

/* trace_cdec.h's hot decoder reads the same ctrl bits */
_Static_assert(C_FILE == DUT_TRACE_CC_FILE && C_PID == DUT_TRACE_CC_PID && C_LEN == DUT_TRACE_CC_LEN &&
	       C_OPFL == DUT_TRACE_CC_OPFL && C_RES_MASK == DUT_TRACE_CC_RES_MASK &&
	       C_RES_LEN == DUT_TRACE_CC_RES_LEN && C_RES_ZERO == DUT_TRACE_CC_RES_ZERO &&
	       C_DUTFS == DUT_TRACE_CC_DUTFS && C_RESERVED == DUT_TRACE_CC_RESERVED,
	       "trace_cdec.h's ctrl bits differ");

int dut_trace_crec_decode(const uint8_t **pp, const uint8_t *end, struct dut_trace_cstate *st)
{
	struct dut_trace_rec *rec = &st->prev;
	const uint8_t *p = *pp;
	uint64_t v;
	uint32_t u;
	unsigned c;

	if (p == end)
		return -EBADMSG;
	c = *p++;
	if ((c & C_RESERVED) || (c & C_RES_MASK) == C_RES_MASK)
		return -EBADMSG;
	if (get_var(&p, end, &v) < 0)
		return -EBADMSG;
	rec->ts_ns += unzz64(v);
	if (get_var(&p, end, &v) < 0)
		return -EBADMSG;
	rec->offset += rec->len + unzz64(v);
	if (get_var(&p, end, &rec->lat_ns) < 0)
		return -EBADMSG;
	if ((c & C_FILE) && get_var32(&p, end, UINT32_MAX, &rec->file_id) < 0)
		return -EBADMSG;
	if (c & C_PID) {
		if (get_var(&p, end, &v) < 0 || v == 0 || v > (uint64_t)UINT32_MAX + DUT_TRACE_CPIDS)
			return -EBADMSG;
		if (v < DUT_TRACE_CPIDS) {
			rec->pid = st->pids[v];
			pids_front(st->pids, (unsigned)v, rec->pid);
		} else {
			rec->pid = (uint32_t)(v - DUT_TRACE_CPIDS);
			pids_front(st->pids, DUT_TRACE_CPIDS - 1, rec->pid);
		}
	}
	if ((c & C_LEN) && get_var32(&p, end, UINT32_MAX, &rec->len) < 0)
		return -EBADMSG;
	if (c & C_OPFL) {
		if (get_var32(&p, end, UINT16_MAX, &u) < 0)
			return -EBADMSG;
		rec->op = (uint16_t)u;
		if (get_var32(&p, end, UINT16_MAX, &u) < 0)
			return -EBADMSG;
		rec->flags = (uint16_t)u;
	}
	switch (c & C_RES_MASK) {
	case C_RES_LEN:
		rec->result = (int32_t)rec->len;
		break;
	case C_RES_ZERO:
		rec->result = 0;
		break;
	default:
		if (get_var32(&p, end, UINT32_MAX, &u) < 0)
			return -EBADMSG;
		rec->result = (int32_t)((u >> 1) ^ (uint32_t)-(int32_t)(u & 1));
		break;
	}
	rec->dutfs_ns = 0;
	if ((c & C_DUTFS) && get_var32(&p, end, UINT32_MAX, &rec->dutfs_ns) < 0)
		return -EBADMSG;
	*pp = p;
	return 0;
}
