/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compact decoder's hot path (lib/trace_cdec.h) against the checked
 * one (dut_trace_crec_decode): on random bytes, on encoded records with
 * every varint length and on encoded records with a few bytes changed,
 * both accept and refuse the same records, consume the same bytes and
 * leave the same coder state.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/splitmix.h"
#include "lib/trace.h"
#include "lib/trace_cdec.h"
#include "lib/trace_format.h"
#include "tests/cu_main.h"

#define BUF 256

static bool state_eq(const struct dut_trace_cstate *a, const struct dut_trace_cstate *b)
{
	const struct dut_trace_rec *x = &a->prev, *y = &b->prev;

	return x->ts_ns == y->ts_ns && x->offset == y->offset && x->lat_ns == y->lat_ns &&
	       x->len == y->len && x->result == y->result && x->file_id == y->file_id &&
	       x->pid == y->pid && x->op == y->op && x->flags == y->flags &&
	       x->dutfs_ns == y->dutfs_ns && memcmp(a->pids, b->pids, sizeof(a->pids)) == 0;
}

/* Decode buf's records with both until one refuses; count the disagreements. */
static unsigned compare_both(const uint8_t *buf, size_t len, struct dut_trace_cstate *start,
			     unsigned *ret_ok, unsigned *ret_bad)
{
	struct dut_trace_cstate a = *start, b = *start;
	const uint8_t *pa = buf, *pb = buf, *end = buf + len;
	unsigned diff = 0;

	while (pa < end && end - pa >= DUT_TRACE_CDEC_SLACK) {
		int ra = dut_trace_crec_decode(&pa, end, &a);
		int rb = dut_trace_cdec_rec(&pb, &b); /* the hot path itself, never the fallback */

		if (ra != rb) {
			diff++;
			break;
		}
		if (ra < 0) {
			(*ret_bad)++;
			break;
		}
		(*ret_ok)++;
		if (pa != pb || !state_eq(&a, &b)) {
			diff++;
			break;
		}
	}
	return diff;
}

/* A byte that makes varints of every length: stops, continuations, 0x7f/0xff edges, small. */
static uint8_t rand_byte(uint64_t *st)
{
	uint64_t x = dut_splitmix64(st);

	switch (x % 8) {
	case 0: return 0x80;
	case 1: return 0xff;
	case 2: return 0x7f;
	case 3: return 0x01;
	case 4: return 0x00;
	case 5: return (uint8_t)(0x80 | (x >> 8));
	default: return (uint8_t)(x >> 8);
	}
}

static void test_random_bytes_agree(void)
{
	uint64_t st = 25;
	unsigned diff = 0, ok = 0, bad = 0;

	for (unsigned k = 0; k < 200000; k++) {
		uint8_t buf[BUF];
		struct dut_trace_cstate s;

		for (size_t i = 0; i < BUF; i++)
			buf[i] = rand_byte(&st);
		/* a ctrl byte that decodes now and then */
		buf[0] &= (uint8_t)(dut_splitmix64(&st) & 1 ? 0x7f : 0x4f);
		dut_trace_cstate_init(&s);
		for (unsigned i = 0; i < DUT_TRACE_CPIDS; i++)
			s.pids[i] = (uint32_t)dut_splitmix64(&st);
		diff += compare_both(buf, BUF, &s, &ok, &bad);
	}
	CU_CHECK(diff == 0, "%u of 200000 random buffers decode differently", diff);
	CU_CHECK(ok > 1000 && bad > 1000, "random bytes too tame: %u records read, %u refused", ok, bad);
}

/* A field value with about `bits` significant bits. */
static uint64_t rand_bits(uint64_t *st, unsigned bits)
{
	uint64_t x = dut_splitmix64(st);

	return bits >= 64 ? x : x & ((1ull << bits) - 1);
}

static void test_encoded_records_agree(void)
{
	uint64_t st = 7;
	struct dut_trace_cstate enc, a, b;
	uint8_t buf[64 * 1024 + BUF];
	size_t len = 0;
	unsigned n = 0, diff = 0;

	dut_trace_cstate_init(&enc);
	memset(buf, 0, sizeof(buf));
	while (len + DUT_TRACE_CREC_MAX < 64 * 1024) {
		struct dut_trace_rec r = enc.prev;
		unsigned w = (unsigned)(dut_splitmix64(&st) % 65);

		r.ts_ns += rand_bits(&st, w) - (dut_splitmix64(&st) & 1 ? rand_bits(&st, w) : 0);
		r.offset = dut_splitmix64(&st) & 1 ? r.offset + r.len : rand_bits(&st, w);
		r.lat_ns = rand_bits(&st, w);
		if (dut_splitmix64(&st) % 4 == 0)
			r.file_id = (uint32_t)rand_bits(&st, w > 32 ? 32 : w);
		if (dut_splitmix64(&st) % 3 == 0)
			r.pid = (uint32_t)(dut_splitmix64(&st) % 12 + (w > 40 ? 4000000000u : 0));
		if (dut_splitmix64(&st) % 4 == 0)
			r.len = (uint32_t)rand_bits(&st, w > 32 ? 32 : w);
		if (dut_splitmix64(&st) % 5 == 0) {
			r.op = (uint16_t)rand_bits(&st, 16);
			r.flags = (uint16_t)rand_bits(&st, 16);
		}
		switch (dut_splitmix64(&st) % 3) {
		case 0: r.result = (int32_t)r.len; break;
		case 1: r.result = 0; break;
		default: r.result = (int32_t)(uint32_t)rand_bits(&st, 32); break;
		}
		r.dutfs_ns = dut_splitmix64(&st) & 1 ? (uint32_t)rand_bits(&st, w > 32 ? 32 : w) : 0;
		len += dut_trace_crec_encode(&enc, &r, buf + len);
		n++;
	}
	dut_trace_cstate_init(&a);
	dut_trace_cstate_init(&b);
	const uint8_t *pa = buf, *pb = buf, *end = buf + sizeof(buf);

	for (unsigned i = 0; i < n; i++) {
		int ra = dut_trace_crec_decode(&pa, end, &a), rb = dut_trace_cdec_rec(&pb, &b);

		if (ra != 0 || rb != 0 || pa != pb || !state_eq(&a, &b)) {
			diff++;
			break;
		}
	}
	CU_CHECK(diff == 0, "the hot decoder disagrees on encoded records (%u records)", n);
	CU_CHECK(pa == buf + len, "decoded %td of %zu bytes", pa - buf, len);
	CU_CHECK(state_eq(&a, &enc), "the last record decodes to something else");
}

/*
 * Records like a trace's (small fields, a few pids, now and then a field at
 * its width's edge) with 1 to 3 bytes changed: the damage a hot decoder's
 * checks of a field's width and of a record's end must see as the checked
 * one does.
 */
static void test_mutated_records_agree(void)
{
	static const uint64_t edges[] = { 0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0xffff, 0x10000,
					  0xfffffff, 0x10000000, UINT32_MAX, (uint64_t)UINT32_MAX + 1 };
	uint64_t st = 11;
	struct dut_trace_cstate enc;
	uint8_t orig[4096 + BUF], buf[sizeof(orig)];
	size_t len = 0;
	unsigned diff = 0, ok = 0, bad = 0;

	dut_trace_cstate_init(&enc);
	memset(orig, 0, sizeof(orig));
	while (len + DUT_TRACE_CREC_MAX < 4096) {
		struct dut_trace_rec r = enc.prev;
		uint64_t x = dut_splitmix64(&st);

		r.ts_ns += x % 100000;
		r.offset = x & 0x100000 ? r.offset + r.len : (x >> 24) % (1ull << 36);
		r.lat_ns = (x >> 8) % 50000;
		if (x & 0x200000)
			r.file_id = (uint32_t)(x >> 40) % 8;
		if (x & 0x400000)
			r.pid = 1000 + (uint32_t)(x >> 44) % 12;
		if (x & 0x800000)
			r.len = 512u << (x >> 50) % 8;
		if (x & 0x1000000) {
			r.op = (uint16_t)(1 + (x >> 54) % 15);
			r.flags = (uint16_t)((x >> 58) & 0x1f);
		}
		r.result = x & 0x2000000 ? (int32_t)r.len : x & 0x4000000 ? 0 : -5;
		r.dutfs_ns = x & 0x8000000 ? (uint32_t)(x >> 28) % 20000 : 0;
		if (x % 16 == 0) /* one field at an edge of its width */
			r.len = (uint32_t)edges[(x >> 4) % 11];
		len += dut_trace_crec_encode(&enc, &r, orig + len);
	}
	for (unsigned k = 0; k < 100000; k++) {
		unsigned changes = 1 + (unsigned)(dut_splitmix64(&st) % 3);
		struct dut_trace_cstate s;

		memcpy(buf, orig, sizeof(buf));
		for (unsigned i = 0; i < changes; i++)
			buf[dut_splitmix64(&st) % len] = rand_byte(&st);
		dut_trace_cstate_init(&s);
		diff += compare_both(buf, sizeof(buf), &s, &ok, &bad);
	}
	CU_CHECK(diff == 0, "%u of 100000 changed buffers decode differently", diff);
	CU_CHECK(bad > 1000, "changes too tame: %u records read, %u refused", ok, bad);
}

static const struct cu_test tests[] = {
	{ "random_bytes_agree", test_random_bytes_agree },
	{ "encoded_records_agree", test_encoded_records_agree },
	{ "mutated_records_agree", test_mutated_records_agree },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "trace_cdec", .tests = tests };
