/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/splitmix.h"
#include "tools/crash/crash_plan.h"

static const char *const point_names[CRASH_POINTS] = {
	[CRASH_AT_WAL_WRITE] = "wal-write", [CRASH_AT_WAL_FSYNC] = "wal-fsync",
	[CRASH_AT_HEAP_WRITE] = "heap-write", [CRASH_AT_INDEX_WRITE] = "index-write",
	[CRASH_AT_DATA_FSYNC] = "data-fsync",
	[CRASH_AT_PG_CONTROL] = "pg_control", [CRASH_AT_SLRU_WRITE] = "slru-write",
	[CRASH_AT_CHECKPOINT] = "checkpoint", [CRASH_AT_TIME] = "time", [CRASH_AT_INIT] = "init",
};

static const char *const loss_names[CRASH_LOSSES] = {
	[CRASH_LOSS_ALL] = "lose-all", [CRASH_LOSS_NONE] = "lose-none", [CRASH_LOSS_SUBSET] = "subset",
	[CRASH_LOSS_TORN] = "torn", [CRASH_LOSS_FSYNC_EIO] = "fsync-eio",
};

const char *crash_point_name(enum crash_point p)
{
	return (unsigned)p < CRASH_POINTS ? point_names[p] : "?";
}

const char *crash_loss_name(enum crash_loss l)
{
	return (unsigned)l < CRASH_LOSSES ? loss_names[l] : "?";
}

const char *crash_control_name(enum crash_control c)
{
	return c == CRASH_CONTROL_FPW_OFF ? "control:full_page_writes=off" :
	       c == CRASH_CONTROL_FSYNC_OFF ? "control:fsync=off" : "regular";
}

const char *crash_control_settings(enum crash_control c)
{
	return c == CRASH_CONTROL_FPW_OFF ? "full_page_writes = off\n" :
	       c == CRASH_CONTROL_FSYNC_OFF ? "fsync = off\n" : "";
}

static int parse_name(const char *s, const char *const *names, unsigned n, unsigned *ret)
{
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret = i;
			return 0;
		}
	}
	return -EINVAL;
}

int crash_point_parse(const char *s, enum crash_point *ret)
{
	unsigned v;

	if (parse_name(s, point_names, CRASH_POINTS, &v) < 0)
		return -EINVAL;
	*ret = (enum crash_point)v;
	return 0;
}

int crash_loss_parse(const char *s, enum crash_loss *ret)
{
	unsigned v;

	if (parse_name(s, loss_names, CRASH_LOSSES, &v) < 0)
		return -EINVAL;
	*ret = (enum crash_loss)v;
	return 0;
}

static int parse_list(const char *s, const char *const *names, unsigned n, uint32_t *ret_mask,
		      char *bad, size_t bad_len)
{
	uint32_t mask = 0;
	const char *p = s;

	while (*p) {
		char item[32];
		size_t k = strcspn(p, ",");
		unsigned v;

		while (k && *p == ' ') {
			p++;
			k--;
		}
		while (k && p[k - 1] == ' ')
			k--;
		if (k == 0 || k >= sizeof(item) ||
		    (memcpy(item, p, k), item[k] = 0, parse_name(item, names, n, &v) < 0)) {
			snprintf(bad, bad_len, "%.*s", (int)(k < 31 ? k : 31), p);
			return -EINVAL;
		}
		mask |= 1u << v;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	if (!mask) {
		snprintf(bad, bad_len, "%s", s);
		return -EINVAL;
	}
	*ret_mask = mask;
	return 0;
}

int crash_points_parse_list(const char *s, uint32_t *ret_mask, char *bad, size_t bad_len)
{
	return parse_list(s, point_names, CRASH_POINTS, ret_mask, bad, bad_len);
}

int crash_losses_parse_list(const char *s, uint32_t *ret_mask, char *bad, size_t bad_len)
{
	return parse_list(s, loss_names, CRASH_LOSSES, ret_mask, bad, bad_len);
}

void crash_campaign_defaults(struct crash_campaign *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->states = 45;   /* 9 points x 5 losses: every pair once */
	c->control_states = 2;
	c->sector = 512;
	c->workload_s = 4;
	c->clients = 4;
}

unsigned crash_campaign_total(const struct crash_campaign *c)
{
	return c->states + 2 * c->control_states;
}

/* splitmix64: the plan's own stream, independent of dutfs's */
static uint64_t mix(uint64_t *x)
{
	return dut_splitmix64(x);
}

static uint64_t uniform(uint64_t *x, uint64_t lo, uint64_t hi)   /* [lo, hi] */
{
	return lo + mix(x) % (hi - lo + 1);
}

/* The k-th set bit of mask (k < popcount). */
static unsigned nth_bit(uint32_t mask, unsigned k)
{
	for (unsigned b = 0; b < 32; b++)
		if (mask & (1u << b) && k-- == 0)
			return b;
	return 0;
}

/*
 * Stratified: the campaign's (point, loss) pairs are numbered k = q * P + p,
 * with p the point's rank among the P points of the mask and q in 0..L-1,
 * and pair k has the loss of rank (p + q) mod L; state i takes pair
 * (i + offset) mod (P * L), the offset drawn from the campaign's seed.  For
 * a given p, q -> (p + q) mod L is one-to-one, so the P * L numbers are the
 * P * L pairs: any P * L consecutive states cover every (point, loss) pair
 * exactly once, whatever P and L (the default 9 points and 5 losses: any 45
 * consecutive states), and any P consecutive states every point.  (Taking
 * each list in turn, as before, covered every pair only when P and L were
 * coprime: 10 points with init and 5 losses drew 10 of the 50 pairs.)
 */
static void pick(uint64_t seed, unsigned index, uint32_t points, uint32_t losses, unsigned *ret_point,
		 unsigned *ret_loss)
{
	uint64_t x = seed ^ 0x706f696e74ull;
	unsigned np = (unsigned)__builtin_popcount(points), nl = (unsigned)__builtin_popcount(losses);
	uint64_t pairs = (uint64_t)np * nl, k = (mix(&x) % pairs + index) % pairs;
	unsigned p = (unsigned)(k % np), q = (unsigned)(k / np);

	*ret_point = nth_bit(points, p);
	*ret_loss = nth_bit(losses, (p + q) % nl);
}

/* The range of N for a crash after the Nth request of a point (from a ledger run at scale 1). */
static uint64_t pick_nth(uint64_t *x, enum crash_point p)
{
	switch (p) {
	case CRASH_AT_WAL_WRITE: return uniform(x, 1, 300);
	case CRASH_AT_WAL_FSYNC: return uniform(x, 1, 150);
	case CRASH_AT_HEAP_WRITE: return uniform(x, 1, 60);
	case CRASH_AT_INDEX_WRITE: return uniform(x, 1, 30);
	/*
	 * The state's CHECKPOINT fsyncs each data file it wrote (and the SLRU
	 * segments) once: 15 to 20 fsyncs in 6 ledger runs of 4 s with the
	 * CHECKPOINT at 0.6 to 2 s (13 to 18 of heap, index, fsm and vm, 2 of
	 * SLRU; counted through dutfs, PostgreSQL 15: docs/crash.md).  None
	 * before it: the start of a cleanly stopped cluster fsyncs no data file.
	 */
	case CRASH_AT_DATA_FSYNC: return uniform(x, 1, 15);
	case CRASH_AT_PG_CONTROL: return uniform(x, 2, 3);   /* 1: the start's own update */
	case CRASH_AT_SLRU_WRITE: return uniform(x, 1, 2);   /* pg_xact's page at the CHECKPOINT */
	/*
	 * Any write, from the mount: the start writes ~20, pgload init -s 1
	 * about 3,000 (COPY, vacuum, keys), its CHECKPOINT about 1,700 (counted
	 * through dutfs, PostgreSQL 15).  Past the last, the crash comes after
	 * the CHECKPOINT (everything acknowledged).
	 */
	case CRASH_AT_INIT: return uniform(x, 1, 4800);
	default: return 0;
	}
}

void crash_plan_state(const struct crash_campaign *c, unsigned index, struct crash_state *ret)
{
	uint32_t points = c->points_mask ? c->points_mask : CRASH_POINTS_DEFAULT;
	uint32_t losses = c->losses_mask ? c->losses_mask : (1u << CRASH_LOSSES) - 1;
	uint64_t work_ms = (uint64_t)(c->workload_s * 1000);
	uint64_t x = c->seed ^ (0x5851f42d4c957f2dull * ((uint64_t)index + 1));
	struct crash_state s = { .index = index };

	if (work_ms < 500)
		work_ms = 500;
	s.seed = mix(&x);
	x = s.seed;
	if (index >= c->states)
		s.control = index - c->states < c->control_states ? CRASH_CONTROL_FPW_OFF : CRASH_CONTROL_FSYNC_OFF;
	s.checkpoint_at_ms = uniform(&x, work_ms / 5, work_ms / 2);
	s.sector = c->sector ? c->sector : 512;
	switch (s.control) {
	case CRASH_CONTROL_FPW_OFF:
		/*
		 * Crash inside the CHECKPOINT's writes: its pages are unsynced, and
		 * torn.  Not the Nth heap write: before the checkpoint the heap
		 * writes are a growing table's new pages, which redo re-initialises
		 * (a control that crashed there saw nothing, in CI).
		 */
		s.point = CRASH_AT_CHECKPOINT;
		s.loss = CRASH_LOSS_TORN;
		s.sector = 4096;
		break;
	case CRASH_CONTROL_FSYNC_OFF:
		s.point = CRASH_AT_TIME;
		s.loss = CRASH_LOSS_ALL;
		break;
	case CRASH_CONTROL_NONE: {
		unsigned p, l;

		pick(c->seed, index, points, losses, &p, &l);
		s.point = (enum crash_point)p;
		s.loss = (enum crash_loss)l;
		s.nth = pick_nth(&x, s.point);
		break;
	}
	}
	/* the time crash, and the fallback when the Nth request (or the checkpoint) never comes */
	s.at_ms = s.point == CRASH_AT_TIME ? uniform(&x, work_ms / 4, work_ms - work_ms / 10) : work_ms;
	if (s.point == CRASH_AT_INIT)
		s.at_ms = 300000;   /* a safety only: the load's end crashes it (crash_state.c) */
	/*
	 * Into the CHECKPOINT's writes (1 ms each in these states, see
	 * crash_state_rules; it writes the catalogs' few dirty pages first, in
	 * relfilenode order): past them, into the tables, before its sync.
	 */
	if (s.point == CRASH_AT_CHECKPOINT)
		s.ckpt_delay_ms = uniform(&x, 150, 500);
	switch (s.loss) {
	case CRASH_LOSS_ALL:
	case CRASH_LOSS_FSYNC_EIO:
		s.lose_pct = 100;
		break;
	case CRASH_LOSS_NONE:
		s.lose_pct = 0;
		break;
	case CRASH_LOSS_SUBSET:
		s.lose_pct = (double)uniform(&x, 10, 90);
		s.grain = 8192;
		break;
	case CRASH_LOSS_TORN:
		s.lose_pct = 50;
		s.grain = s.sector;
		break;
	default:
		break;
	}
	if (s.loss == CRASH_LOSS_FSYNC_EIO)
		s.eio_nth = uniform(&x, 1, 100);
	*ret = s;
}

struct out {
	char *buf;
	size_t len, used;
	bool full;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used)
		o->full = true;
	else
		o->used += (size_t)n;
}

/* The rule lines that select a crash point's requests. */
static void point_match(struct out *o, enum crash_point p)
{
	switch (p) {
	case CRASH_AT_WAL_WRITE: emit(o, "class = wal\nop = write\n"); break;
	case CRASH_AT_WAL_FSYNC: emit(o, "class = wal\nop = sync\n"); break;
	case CRASH_AT_HEAP_WRITE: emit(o, "class = heap\nop = write\n"); break;
	case CRASH_AT_INDEX_WRITE: emit(o, "class = index\nop = write\n"); break;
	case CRASH_AT_DATA_FSYNC: emit(o, "class = heap, index, toast, fsm, vm, slru\nop = sync\n"); break;
	case CRASH_AT_PG_CONTROL: emit(o, "path = */global/pg_control\nop = write\n"); break;
	case CRASH_AT_SLRU_WRITE: emit(o, "class = slru\nop = write\n"); break;
	case CRASH_AT_INIT: emit(o, "op = write\n"); break;
	default: break;
	}
}

int crash_state_rules(const struct crash_state *s, char *buf, size_t len)
{
	struct out o = { buf, len, 0, false };
	bool eio = s->loss == CRASH_LOSS_FSYNC_EIO;
	bool point = s->point != CRASH_AT_TIME && s->point != CRASH_AT_CHECKPOINT;

	if (!len)
		return -ENOSPC;
	buf[0] = 0;
	emit(&o, "; dutlab crash state %u (seed %llu): crash at %s, loss %s%s%s\n", s->index,
	     (unsigned long long)s->seed, crash_point_name(s->point), crash_loss_name(s->loss),
	     s->control ? ", " : "", s->control ? crash_control_name(s->control) : "");
	/* pgload's state file and the server log are the harness, not the database */
	emit(&o, "[model passthrough]\ntype = fixed\nread_latency = 0\nwrite_latency = 0\n\n"
		 "[rule harness]\npath = */pgload_*\nmodel = passthrough\n\n");
	emit(&o, "[fault loss]\ntype = unsynced\nlose = %g%%\ntorn = %s\nsector = %u\n", s->lose_pct,
	     s->loss == CRASH_LOSS_TORN || s->loss == CRASH_LOSS_SUBSET ? "random" : "none", s->sector);
	if (s->grain)
		emit(&o, "grain = %llu\n", (unsigned long long)s->grain);
	emit(&o, "seed = %llu\n\n", (unsigned long long)(s->seed & 0x7fffffffffffull));
	if (point)
		emit(&o, "[fault point]\ntype = crash\nnth = %llu\n\n", (unsigned long long)s->nth);
	if (eio)
		emit(&o, "[fault eio]\ntype = error\nerrno = EIO\nnth = %llu\n\n", (unsigned long long)s->eio_nth);
	if (point) {
		emit(&o, "[rule point]\n");
		point_match(&o, s->point);
		emit(&o, "fault = %spoint, loss\n\n", eio && s->point == CRASH_AT_WAL_FSYNC ? "eio, " : "");
	}
	if (eio && s->point != CRASH_AT_WAL_FSYNC)
		emit(&o, "[rule wal-fsync]\nclass = wal\nop = sync\nfault = eio, loss\n\n");
	/*
	 * The checkpoint point: data-file writes take 1 ms, so the CHECKPOINT's
	 * write phase (one page at a time, ~700 to 1700 pages here) lasts about
	 * a second, and the harness's crash 150 to 500 ms after its log line
	 * lands inside it, among the tables' pages (an immediate checkpoint
	 * otherwise wrote everything in 0.05 s here).
	 */
	if (s->point == CRASH_AT_CHECKPOINT)
		emit(&o, "[model slow-data]\ntype = fixed\nread_latency = 0\nwrite_latency = 1ms\n\n"
			 "[rule slow-data]\nclass = heap, index, toast, fsm, vm\nop = write\nmodel = slow-data\n"
			 "fault = loss\n\n");
	emit(&o, "[rule all]\nfault = loss\n");
	return o.full ? -ENOSPC : 0;
}
