/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace thread's ring: a chain of single-producer / single-consumer
 * buffers that grows when the writer thread comes late (trace_writer_priv.h).
 *
 * Why it grows instead of being large from the start: a ring must hold what
 * its thread emits while the writer thread waits for a CPU.  dutfs emits at
 * most ~50k records/s, which a 16 Ki-record buffer (768 KiB) holds for
 * 330 ms; at the writer's bound of 1.35M records/s a thread, the same buffer
 * lasts 12 ms, which a loaded 2-CPU machine does not always give the writer
 * (docs/soak.md, 2026-12-07).  So a ring starts small and doubles, up to
 * max_cap, only when it is full: a thread pays for the rate it has had.
 *
 * Ordering: the producer publishes a buffer's records with release stores of
 * its head and only then (release) links the next buffer, which it never
 * writes into before that; the consumer that sees next (acquire) and then
 * reads the old buffer's head sees its last record.  So the consumer takes
 * all of a buffer before the first record of the next: a thread's records
 * keep their order across a grow.
 *
 * Pure: no locks, no syscalls besides malloc/free; the threads, the
 * eventfd and the batching are trace_writer.c's.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace_writer_priv.h"

static struct ring_buf *ring_buf_new(uint64_t cap)
{
	struct ring_buf *q = aligned_alloc(64, sizeof(*q) + cap * sizeof(q->slots[0]));

	if (!q)
		return NULL;
	/* Only the header: the slots' pages stay untouched until records reach them. */
	memset(q, 0, sizeof(*q));
	q->cap = cap;
	q->mask = cap - 1;
	/*
	 * Wake the writer when an eighth of the buffer is in use, looked at
	 * every sixteenth: the buffer then has seven eighths of its time left for
	 * the writer thread to be scheduled, where waking at half full left half.
	 * Tiny buffers look at every record and wake at half.
	 */
	q->check_mask = (cap >= 16 ? cap / 16 : 1) - 1;
	q->nudge_at = cap >= 16 ? cap / 8 : cap / 2;
	return q;
}

struct ring *dut_tw_ring_new(uint64_t cap, uint64_t max_cap)
{
	struct ring *b = aligned_alloc(64, sizeof(*b));

	if (!b)
		return NULL;
	memset(b, 0, sizeof(*b));
	b->prod = b->cons = ring_buf_new(cap);
	if (!b->prod) {
		free(b);
		return NULL;
	}
	b->max_cap = max_cap > cap ? max_cap : cap;
	return b;
}

void dut_tw_ring_free(struct ring *b)
{
	struct ring_buf *q = b->cons;

	while (q) {
		struct ring_buf *next = atomic_load_explicit(&q->next, memory_order_acquire);

		free(q);
		q = next;
	}
	free(b);
}

static void count_drop(struct ring *b)
{
	atomic_store_explicit(&b->dropped, atomic_load_explicit(&b->dropped, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

int dut_tw_ring_push_full(struct ring *b, const struct dut_trace_rec *r)
{
	struct ring_buf *q = b->prod, *nq;

	if (q->cap >= b->max_cap) {
		count_drop(b);
		return -ENOBUFS;
	}
	/*
	 * malloc here, on the emitting thread: a few microseconds once per
	 * doubling (the pages fault in as records reach them), where the
	 * alternative is to lose the record.
	 */
	nq = ring_buf_new(q->cap * 2);
	if (!nq) {
		count_drop(b);
		return -ENOBUFS;
	}
	nq->slots[0] = *r;
	atomic_store_explicit(&nq->head, 1, memory_order_relaxed); /* published by the link below */
	atomic_store_explicit(&q->next, nq, memory_order_release);
	b->prod = nq;
	b->cached_tail = 0;
	atomic_store_explicit(&b->grows, atomic_load_explicit(&b->grows, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return 1; /* the writer is late: wake it */
}

uint64_t dut_tw_ring_avail(struct ring *b, struct ring_buf **ret_q, uint64_t *ret_tail)
{
	for (;;) {
		struct ring_buf *q = b->cons, *next;
		uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
		uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire);

		if (head == tail) {
			next = atomic_load_explicit(&q->next, memory_order_acquire);
			if (!next)
				return 0;
			/* The producer has left q; its last records are visible now. */
			head = atomic_load_explicit(&q->head, memory_order_acquire);
			if (head == tail) {
				b->cons = next;
				free(q);
				continue;
			}
		}
		*ret_q = q;
		*ret_tail = tail;
		return head - tail;
	}
}

uint64_t dut_tw_ring_bytes(const struct ring *b)
{
	uint64_t n = sizeof(*b);

	for (const struct ring_buf *q = b->cons; q; q = atomic_load_explicit(&q->next, memory_order_acquire))
		n += sizeof(*q) + q->cap * sizeof(q->slots[0]);
	return n;
}
