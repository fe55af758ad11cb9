/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace thread's growing ring (lib/trace_writer_ring.c) on its own, with
 * no writer thread: growth up to the cap, drops counted there, order across
 * grows, and a producer and a consumer at once.  Through the writer:
 * test_trace.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_writer_priv.h"
#include "tests/cu_main.h"


DUT_DEFINE_FREEP(struct ring *, dut_tw_ring_free)

/* Push records seq first..first+n-1; return how many were dropped. */
static uint64_t ring_push_seq(struct ring *b, uint64_t first, uint64_t n)
{
	uint64_t dropped = 0;

	for (uint64_t i = first; i < first + n; i++)
		if (dut_tw_ring_push(b, &(struct dut_trace_rec){ .ts_ns = i, .offset = i }) < 0)
			dropped++;
	return dropped;
}

/* Take up to max records; each must be *next_seq, then the one after. */
static uint64_t ring_take_seq(struct ring *b, uint64_t max, uint64_t *next_seq)
{
	struct ring_buf *q;
	uint64_t tail, n, got = 0;

	while (got < max && (n = dut_tw_ring_avail(b, &q, &tail)) > 0) {
		if (n > max - got)
			n = max - got;
		for (uint64_t i = 0; i < n; i++) {
			const struct dut_trace_rec *r = dut_tw_ring_at(q, tail + i);

			if (r->ts_ns != *next_seq || r->offset != *next_seq)
				cu_fail("record %llu where %llu was due", (unsigned long long)r->ts_ns,
					(unsigned long long)*next_seq);
			*next_seq = r->ts_ns + 1;
		}
		dut_tw_ring_consumed(q, tail + n);
		got += n;
	}
	return got;
}

/*
 * With no consumer, a ring of 8 that may grow to 64 holds 8 + 16 + 32 + 64
 * records (three grows, the chain's memory), then drops at the cap and
 * counts each drop; the consumer gets the 120 in order, across the grows.
 */
static void test_ring_grows_to_its_cap_then_drops_counted(void)
{
	_cleanup_(dut_tw_ring_freep) struct ring *b = dut_tw_ring_new(8, 64);
	uint64_t next = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(dut_tw_ring_bytes(b), sizeof(*b) + sizeof(struct ring_buf) + 8 * DUT_TRACE_REC_SIZE);
	CU_ASSERT_EQUAL(ring_push_seq(b, 0, 120), 0);
	CU_ASSERT_EQUAL(b->grows, 3);
	CU_ASSERT_EQUAL(b->prod->cap, 64);
	CU_ASSERT_EQUAL(dut_tw_ring_bytes(b), sizeof(*b) + 4 * sizeof(struct ring_buf) + 120 * DUT_TRACE_REC_SIZE);
	CU_ASSERT_EQUAL(ring_push_seq(b, 120, 1000), 1000);
	CU_ASSERT_EQUAL(b->dropped, 1000);
	CU_ASSERT_EQUAL(b->grows, 3);
	CU_ASSERT_EQUAL(ring_take_seq(b, UINT64_MAX, &next), 120);
	CU_ASSERT_EQUAL(next, 120);
	/* drained: the smaller buffers are freed, the largest stays (no shrinking) */
	CU_ASSERT_PTR_EQUAL(b->cons, b->prod);
	CU_ASSERT_EQUAL(dut_tw_ring_bytes(b), sizeof(*b) + sizeof(struct ring_buf) + 64 * DUT_TRACE_REC_SIZE);
	/* the grown ring holds 64 at a time now, and the 65th is a drop */
	CU_ASSERT_EQUAL(ring_push_seq(b, 120, 64), 0);
	CU_ASSERT_EQUAL(ring_push_seq(b, 184, 1), 1);
	CU_ASSERT_EQUAL(b->dropped, 1001);
	CU_ASSERT_EQUAL(ring_take_seq(b, UINT64_MAX, &next), 64);
	CU_ASSERT_EQUAL(next, 184);
}

/*
 * The consumer takes part of a buffer, the producer grows past it, and the
 * consumer still gets the rest of the old buffer before the new one's
 * first record; rows are (records pushed, records taken) steps.
 */
static void test_ring_keeps_order_across_grows(void)
{
	static const struct { uint64_t push, take; } steps[] = {
		{ 8, 3 },     /* 5 left in the first buffer */
		{ 3, 0 },     /* it is full again */
		{ 1, 2 },     /* the grow to 16: 6 old + 1 new, take 2 of the old */
		{ 20, 9 },    /* the grow to 32 (6 in the 8 and 16 in the 16 wait); 9 taken across a switch */
		{ 0, 100 },   /* the other 18, in order */
		{ 40, 40 },   /* 32 fit in the drained 32, the other 8 grow it to 64 */
		{ 64, 64 },   /* fits the drained 64: no grow */
	};
	_cleanup_(dut_tw_ring_freep) struct ring *b = dut_tw_ring_new(8, 1024);
	uint64_t pushed = 0, next = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t before = next;

		CU_CHECK(ring_push_seq(b, pushed, steps[i].push) == 0, "step %zu dropped", i);
		pushed += steps[i].push;
		ring_take_seq(b, steps[i].take, &next);
		CU_CHECK(next - before == (steps[i].take < pushed - before ? steps[i].take : pushed - before),
			 "step %zu: took %llu", i, (unsigned long long)(next - before));
	}
	CU_ASSERT_EQUAL(next, pushed);
	CU_ASSERT_EQUAL(b->dropped, 0);
	CU_ASSERT_EQUAL(b->prod->cap, 64);
}

/* max_cap == cap: today's fixed ring, which drops when full and never grows. */
static void test_ring_without_growth_drops_when_full(void)
{
	_cleanup_(dut_tw_ring_freep) struct ring *b = dut_tw_ring_new(16, 16);
	uint64_t next = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(ring_push_seq(b, 0, 40), 24);
	CU_ASSERT_EQUAL(b->grows, 0);
	CU_ASSERT_EQUAL(b->dropped, 24);
	CU_ASSERT_EQUAL(ring_take_seq(b, UINT64_MAX, &next), 16);
	CU_ASSERT_EQUAL(next, 16);
}

/*
 * A producer and a consumer thread at once (also run under TSan): every
 * record arrives once and in order, or is counted as dropped, while the
 * ring grows from 8 to its cap under the consumer.
 */
enum { RACE_N = 2000000 };

struct ring_race {
	struct ring *b;
	atomic_bool done;
};

static void *ring_race_producer(void *arg)
{
	struct ring_race *rr = arg;

	ring_push_seq(rr->b, 0, RACE_N);
	atomic_store(&rr->done, true);
	return NULL;
}

static void test_ring_grows_under_a_concurrent_consumer(void)
{
	_cleanup_(dut_tw_ring_freep) struct ring *b = dut_tw_ring_new(8, 4096);
	struct ring_race rr = { .b = b };
	pthread_t th;
	uint64_t got = 0, expect = 0, back = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ring_race_producer, &rr), 0);
	for (bool last = false; !last;) {
		struct ring_buf *q;
		uint64_t tail, n;

		/* a drain after the producer's last push is the last one */
		last = atomic_load(&rr.done);
		while ((n = dut_tw_ring_avail(b, &q, &tail)) > 0) {
			for (uint64_t i = 0; i < n; i++) {
				uint64_t seq = dut_tw_ring_at(q, tail + i)->ts_ns;

				/* drops leave gaps, but the order only goes up */
				if (seq < expect)
					back++;
				expect = seq + 1;
			}
			dut_tw_ring_consumed(q, tail + n);
			got += n;
		}
	}
	pthread_join(th, NULL);
	CU_CHECK(back == 0, "%llu records out of order", (unsigned long long)back);
	CU_CHECK(got + b->dropped == RACE_N, "got %llu + dropped %llu", (unsigned long long)got,
		 (unsigned long long)b->dropped);
	CU_ASSERT_EQUAL(b->prod->cap, 4096);
}

static const struct cu_test tests[] = {
	{ "ring_grows_to_its_cap_then_drops_counted", test_ring_grows_to_its_cap_then_drops_counted },
	{ "ring_keeps_order_across_grows", test_ring_keeps_order_across_grows },
	{ "ring_without_growth_drops_when_full", test_ring_without_growth_drops_when_full },
	{ "ring_grows_under_a_concurrent_consumer", test_ring_grows_under_a_concurrent_consumer },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = {
	.name = "trace_ring", .tests = tests,
};
