/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
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

/*
 * N of fsync-eio: the Nth fsync of the classes in that mode.  With WAL among
 * them, 1..100 (the workload fsyncs WAL 130 to 260 times a second: the EIO
 * comes early in the workload, on WAL); else the CHECKPOINT's fsyncs, 15 to
 * 20 of data and SLRU files (pick_nth), 2 of SLRU alone.
 */
static uint64_t eio_range(uint32_t classes)
{
	return classes & (1u << DUT_IO_WAL) ? 100 : classes & CRASH_CLASSES_DATA ? 15 : 2;
}

void crash_plan_state(const struct crash_campaign *c, unsigned index, struct crash_state *ret)
{
	uint32_t points = c->points_mask ? c->points_mask : CRASH_POINTS_DEFAULT;
	uint32_t losses = c->losses_mask ? c->losses_mask : (1u << CRASH_LOSSES) - 1;
	uint64_t work_ms = (uint64_t)(c->workload_s * 1000);
	uint64_t x = c->seed ^ (0x5851f42d4c957f2dull * ((uint64_t)index + 1)), y;
	struct crash_state s = { .index = index };

	if (work_ms < 500)
		work_ms = 500;
	s.seed = mix(&x);
	x = s.seed;
	if (index >= c->states)
		s.control = index - c->states < c->control_states ? CRASH_CONTROL_FPW_OFF : CRASH_CONTROL_FSYNC_OFF;
	s.checkpoint_at_ms = uniform(&x, work_ms / 5, work_ms / 2);
	s.sector = c->sector ? c->sector : 512;
	s.page_bytes = c->page_bytes ? c->page_bytes : 8192;
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
		/* a 4 KiB device's unit; half a page for a server of 4 KiB pages or less */
		s.sector = s.page_bytes > 4096 ? 4096 : s.page_bytes / 2;
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
		/* the controls keep their one loss everywhere: they must be able to see damage */
		s.class_loss = c->class_loss;
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
		s.grain = s.page_bytes;
		break;
	case CRASH_LOSS_TORN:
		s.lose_pct = 50;
		s.grain = s.sector;
		break;
	default:
		break;
	}
	/*
	 * What the classes fixed by --class-loss need beyond the drawn mode
	 * comes from a stream of its own, so the draws above (and so every
	 * state of a campaign without --class-loss) do not depend on it.
	 */
	y = s.seed ^ 0x636c617373ull;
	s.fixed_subset_pct = (double)uniform(&y, 10, 90);
	if (crash_state_loss_classes(&s, CRASH_LOSS_FSYNC_EIO) & CRASH_CLASSES_EIO)
		s.eio_nth = uniform(s.loss == CRASH_LOSS_FSYNC_EIO ? &x : &y, 1,
				    eio_range(crash_state_loss_classes(&s, CRASH_LOSS_FSYNC_EIO)));
	*ret = s;
}

enum crash_loss crash_state_class_loss(const struct crash_state *s, enum dut_io_class c)
{
	if ((unsigned)c < DUT_IO_CLASS_COUNT && s->class_loss.fixed & (1u << c))
		return (enum crash_loss)s->class_loss.loss[c];
	return s->loss;
}

uint32_t crash_state_loss_classes(const struct crash_state *s, enum crash_loss l)
{
	uint32_t mask = 0;

	for (unsigned c = 0; c < DUT_IO_CLASS_COUNT; c++)
		if (crash_state_class_loss(s, (enum dut_io_class)c) == l)
			mask |= 1u << c;
	return mask;
}

int crash_class_loss_parse(const char *s, struct crash_class_loss *ret, char *why, size_t why_len)
{
	struct crash_class_loss cl = { 0 };
	const char *p = s;

	while (*p) {
		char item[64], *eq, *name, *mode;
		size_t k = strcspn(p, ",");
		enum dut_io_class cls;
		enum crash_loss l;
		uint32_t mask;

		if (k >= sizeof(item)) {
			snprintf(why, why_len, "\"%.40s...\": too long for CLASS=MODE", p);
			return -EINVAL;
		}
		memcpy(item, p, k);
		item[k] = 0;
		p += k + (p[k] == ',');
		name = item + strspn(item, " ");
		if (!(eq = strchr(name, '='))) {
			snprintf(why, why_len, "\"%s\": expected CLASS=MODE (wal=lose-none)", name);
			return -EINVAL;
		}
		*eq = 0;
		mode = eq + 1 + strspn(eq + 1, " ");
		for (char *e = eq; e > name && e[-1] == ' ';)
			*--e = 0;
		for (size_t n = strlen(mode); n && mode[n - 1] == ' ';)
			mode[--n] = 0;
		if (!strcmp(name, "data"))
			mask = CRASH_CLASSES_DATA;
		else if (dut_io_class_from_name(name, &cls) == 0)
			mask = 1u << cls;
		else {
			snprintf(why, why_len, "\"%s\": not a class (wal, data, heap, index, toast, fsm, vm, slru, "
				 "temp, other)", name);
			return -EINVAL;
		}
		if (crash_loss_parse(mode, &l) < 0) {
			snprintf(why, why_len, "%s=\"%s\": not a loss mode (lose-all, lose-none, subset, torn, "
				 "fsync-eio)", name, mode);
			return -EINVAL;
		}
		if (cl.fixed & mask) {
			snprintf(why, why_len, "%s: a class named twice", name);
			return -EINVAL;
		}
		if (l == CRASH_LOSS_FSYNC_EIO && !(mask & CRASH_CLASSES_EIO)) {
			snprintf(why, why_len, "%s=fsync-eio: an EIO is injected into the fsyncs of wal, the data files "
				 "and slru only (the others are fsynced at the server's start too, where an EIO "
				 "is a failed start, not a crash state); use lose-all", name);
			return -EINVAL;
		}
		cl.fixed |= mask;
		for (unsigned c = 0; c < DUT_IO_CLASS_COUNT; c++)
			if (mask & (1u << c))
				cl.loss[c] = (uint8_t)l;
	}
	if (!cl.fixed) {
		snprintf(why, why_len, "\"%s\": expected CLASS=MODE[,CLASS=MODE...] (wal=lose-none,data=torn)", s);
		return -EINVAL;
	}
	*ret = cl;
	return 0;
}

void crash_class_loss_format(const struct crash_class_loss *cl, char *buf, size_t len)
{
	size_t used = 0;
	bool data_as_one = (cl->fixed & CRASH_CLASSES_DATA) == CRASH_CLASSES_DATA;

	for (unsigned c = DUT_IO_INDEX; c <= DUT_IO_VM; c++)
		data_as_one &= cl->loss[c] == cl->loss[DUT_IO_HEAP];
	if (len)
		buf[0] = 0;
	for (unsigned c = 0; c < DUT_IO_CLASS_COUNT && used < len; c++) {
		if (!(cl->fixed & (1u << c)) || (data_as_one && c > DUT_IO_HEAP && c <= DUT_IO_VM))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? "," : "",
					 data_as_one && c == DUT_IO_HEAP ? "data" : dut_io_class_name(c),
					 crash_loss_name((enum crash_loss)cl->loss[c]));
	}
}

