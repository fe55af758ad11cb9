/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timer queue that completes delayed replies: deadline order, many
 * producers, never early and late by well under a millisecond typically,
 * and a stop that fires everything still pending.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuse/shape/timerq.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

#define MS 1000000ull

struct rec {
	pthread_mutex_t lock;
	uint64_t order[4096];     /* ids in firing order; lock */
	uint64_t fired_at[4096];  /* by id */
	size_t n;
};

struct ev {
	struct rec *rec;
	uint64_t id;
};

static void on_fire(void *arg)
{
	struct ev *e = arg;
	uint64_t now = shape_now_ns();

	pthread_mutex_lock(&e->rec->lock);
	e->rec->fired_at[e->id] = now;
	e->rec->order[e->rec->n++] = e->id;
	pthread_mutex_unlock(&e->rec->lock);
}

static void wait_for(struct rec *r, size_t n, uint64_t timeout_ns)
{
	uint64_t end = shape_now_ns() + timeout_ns;

	for (;;) {
		size_t got;

		pthread_mutex_lock(&r->lock);
		got = r->n;
		pthread_mutex_unlock(&r->lock);
		if (got >= n || shape_now_ns() > end)
			return;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

static void test_fires_in_deadline_order(void)
{
	/* inserted out of order; ties keep insertion order (ids 3 then 4) */
	static const struct { uint64_t id; uint64_t offset_ms; } rows[] = {
		{ 5, 50 }, { 1, 10 }, { 3, 30 }, { 0, 5 }, { 4, 30 }, { 2, 20 },
	};
	static struct rec r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct ev ev[6];
	struct shape_sched *s;
	uint64_t base = shape_now_ns();

	CU_CHECK(shape_sched_new(&s) == 0, "new");
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		ev[i] = (struct ev){ &r, rows[i].id };
		CU_CHECK(shape_sched_add(s, base + rows[i].offset_ms * MS, on_fire, &ev[i]) == 0, "add");
	}
	wait_for(&r, 6, 5000 * MS);
	CU_CHECK(r.n == 6, "all fired: %zu", r.n);
	for (size_t i = 0; i < r.n; i++)
		CU_CHECK(r.order[i] == i, "position %zu: id %llu", i, (unsigned long long)r.order[i]);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(r.fired_at[rows[i].id] >= base + rows[i].offset_ms * MS, "id %llu fired early",
			 (unsigned long long)rows[i].id);
	shape_sched_free(s);
}

struct producer {
	struct shape_sched *s;
	struct rec *rec;
	struct ev *ev;         /* 256 each */
	uint64_t *deadline;    /* by id */
	unsigned idx;
	int errors;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (unsigned k = 0; k < 256; k++) {
		uint64_t id = p->idx * 256 + k;
		/* spread over 0..40 ms, interleaved between threads */
		uint64_t dl = shape_now_ns() + ((k * 7919 + p->idx * 104729) % 40000) * 1000;

		p->deadline[id] = dl;
		p->ev[k] = (struct ev){ p->rec, id };
		if (shape_sched_add(p->s, dl, on_fire, &p->ev[k]) < 0)
			p->errors++;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_many_producers_never_early(void)
{
	static struct rec r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct ev ev[8][256];
	static uint64_t deadline[2048];
	struct producer p[8];
	pthread_t t[8];
	struct shape_sched *s;
	size_t early = 0, disorder = 0;
	uint64_t joined, last_dl = 0;

	CU_CHECK(shape_sched_new(&s) == 0, "new");
	for (unsigned i = 0; i < 8; i++) {
		p[i] = (struct producer){ s, &r, ev[i], deadline, i, 0 };
		pthread_create(&t[i], NULL, produce, &p[i]);
	}
	for (unsigned i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		CU_CHECK(p[i].errors == 0, "producer %u: %d add errors", i, p[i].errors);
	}
	joined = shape_now_ns();
	wait_for(&r, 2048, 10000 * MS);
	CU_CHECK(r.n == 2048, "fired %zu of 2048", r.n);
	for (size_t i = 0; i < r.n; i++) {
		uint64_t id = r.order[i];

		if (r.fired_at[id] < deadline[id])
			early++;
		/* timers due after every insert was done were all queued before any of
		 * them fired: among them, firing order is deadline order */
		if (deadline[id] > joined + 1 * MS) {
			if (last_dl > deadline[id])
				disorder++;
			last_dl = deadline[id];
		}
	}
	CU_CHECK(early == 0, "%zu timers fired before their deadline", early);
	CU_CHECK(disorder == 0, "%zu out of order", disorder);
	shape_sched_free(s);
}

/* Median lateness of the kernel's own absolute sleep: what any timer thread gets. */
static uint64_t baseline_lateness(void)
{
	uint64_t late[40];

	for (unsigned i = 0; i < 40; i++) {
		uint64_t dl = shape_now_ns() + 1 * MS;
		struct timespec ts = { (time_t)(dl / 1000000000ull), (long)(dl % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		late[i] = shape_now_ns() - dl;
	}
	qsort(late, 40, sizeof(late[0]), cmp_u64);
	return late[20];
}

static void test_lateness_under_1ms_over_the_kernel(void)
{
	static struct rec r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct ev ev[200];
	static uint64_t deadline[200], late[200];
	struct shape_sched *s;
	uint64_t base, before, after;

	before = baseline_lateness();
	CU_CHECK(shape_sched_new(&s) == 0, "new");
	base = shape_now_ns() + 5 * MS;
	for (unsigned i = 0; i < 200; i++) {
		deadline[i] = base + i * 500000ull;   /* one every 0.5 ms */
		ev[i] = (struct ev){ &r, i };
		CU_CHECK(shape_sched_add(s, deadline[i], on_fire, &ev[i]) == 0, "add");
	}
	wait_for(&r, 200, 10000 * MS);
	after = baseline_lateness();
	CU_CHECK(r.n == 200, "fired %zu", r.n);
	for (unsigned i = 0; i < 200; i++)
		late[i] = r.fired_at[i] - deadline[i];
	qsort(late, 200, sizeof(late[0]), cmp_u64);
	/* the machine may be busy (the kernel's own sleeps are late too): compare with it */
	CU_CHECK(late[100] < (before > after ? before : after) + 1 * MS,
		 "median lateness %llu ns, kernel sleeps %llu/%llu ns", (unsigned long long)late[100],
		 (unsigned long long)before, (unsigned long long)after);
	shape_sched_free(s);
}

static void test_stop_drains_pending(void)
{
	static struct rec r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct ev ev[3] = { { &r, 2 }, { &r, 0 }, { &r, 1 } };
	struct shape_sched *s;
	uint64_t far = shape_now_ns() + 3600ull * 1000 * MS, t0;

	CU_CHECK(shape_sched_new(&s) == 0, "new");
	CU_CHECK(shape_sched_add(s, far + 2, on_fire, &ev[0]) == 0, "add");
	CU_CHECK(shape_sched_add(s, far, on_fire, &ev[1]) == 0, "add");
	CU_CHECK(shape_sched_add(s, far + 1, on_fire, &ev[2]) == 0, "add");
	CU_CHECK(shape_sched_pending(s) == 3, "pending");
	t0 = shape_now_ns();
	shape_sched_stop(s);
	CU_CHECK(shape_now_ns() - t0 < 1000 * MS, "stop does not wait for deadlines");
	CU_CHECK(r.n == 3 && r.order[0] == 0 && r.order[1] == 1 && r.order[2] == 2,
		 "drained in deadline order: %zu", r.n);
	CU_CHECK(shape_sched_add(s, 0, on_fire, &ev[0]) == -ESHUTDOWN, "add after stop");
	shape_sched_stop(s);   /* idempotent */
	shape_sched_free(s);
}

static struct shape_sched *chain_s;
static atomic_int chain_n;

static void chain(void *arg)
{
	/* a callback may insert (the lock is not held while it runs) */
	if (atomic_fetch_add(&chain_n, 1) < 4)
		shape_sched_add(chain_s, shape_now_ns() + MS, chain, NULL);
}

static void test_callback_may_insert(void)
{
	CU_CHECK(shape_sched_new(&chain_s) == 0, "new");
	shape_sched_add(chain_s, shape_now_ns(), chain, NULL);
	for (int i = 0; i < 2000 && atomic_load(&chain_n) < 5; i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	CU_CHECK(atomic_load(&chain_n) == 5, "chain ran %d times", atomic_load(&chain_n));
	shape_sched_free(chain_s);
}

static const struct cu_test tests[] = {
	{ "fires_in_deadline_order", test_fires_in_deadline_order },
	{ "many_producers_never_early", test_many_producers_never_early },
	{ "lateness_under_1ms_over_the_kernel", test_lateness_under_1ms_over_the_kernel },
	{ "stop_drains_pending", test_stop_drains_pending },
	{ "callback_may_insert", test_callback_may_insert },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "shape_timerq", .tests = tests };
