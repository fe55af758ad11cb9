/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A crash state's dutfs rules file (crash_plan.h, crash_state_rules): pure.
 *
 * dutfs takes the first rule that matches a request, and a write is
 * journaled with the unsynced fault of that rule.  So each loss mode of the
 * state is a fault ("loss" for the drawn mode, "loss-MODE" for a mode that
 * --class-loss fixed for some classes), and every rule that matches writes
 * (the crash point's, the checkpoint point's slow data files) is split into
 * one rule per mode whose classes it covers, each with that mode's fault
 * (rule "point" for the drawn mode's classes, "point-MODE" for the others).
 * Without --class-loss there is one mode and the file is as it always was.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/crash/crash_plan.h"

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

/* "class = heap, index\n" for a mask of enum dut_io_class */
static void emit_classes(struct out *o, uint32_t mask)
{
	const char *sep = "class = ";

	for (unsigned c = 0; c < DUT_IO_CLASS_COUNT; c++) {
		if (mask & (1u << c)) {
			emit(o, "%s%s", sep, dut_io_class_name(c));
			sep = ", ";
		}
	}
	emit(o, "\n");
}

/* The fault of loss mode l in state s. */
static const char *loss_fault(const struct crash_state *s, enum crash_loss l, char *buf, size_t len)
{
	const char *name = crash_loss_name(l);

	if (l == s->loss)
		return "loss";
	/* loss-none, loss-all, loss-subset, loss-torn, loss-fsync-eio */
	snprintf(buf, len, "loss-%s", strncmp(name, "lose-", 5) ? name : name + 5);
	return buf;
}

/* The modes a rule file holds: the drawn one first, then the fixed ones in enum order. */
static unsigned modes_present(const struct crash_state *s, enum crash_loss ret[CRASH_LOSSES])
{
	unsigned n = 0;

	ret[n++] = s->loss;
	for (unsigned l = 0; l < CRASH_LOSSES; l++)
		if (l != (unsigned)s->loss && crash_state_loss_classes(s, (enum crash_loss)l))
			ret[n++] = (enum crash_loss)l;
	return n;
}

static void emit_unsynced(struct out *o, const struct crash_state *s, enum crash_loss l)
{
	char name[32];
	double pct = l == CRASH_LOSS_NONE ? 0 : l == CRASH_LOSS_TORN ? 50 : 100;
	uint64_t grain = l == CRASH_LOSS_TORN ? s->sector : 0;

	if (l == s->loss) {
		pct = s->lose_pct;
		grain = s->grain;
	} else if (l == CRASH_LOSS_SUBSET) {
		pct = s->fixed_subset_pct;
		grain = s->page_bytes;
	}
	emit(o, "[fault %s]\ntype = unsynced\nlose = %g%%\ntorn = %s\nsector = %u\n", loss_fault(s, l, name, sizeof(name)),
	     pct, l == CRASH_LOSS_TORN || l == CRASH_LOSS_SUBSET ? "random" : "none", s->sector);
	if (grain)
		emit(o, "grain = %llu\n", (unsigned long long)grain);
	emit(o, "seed = %llu\n\n", (unsigned long long)(s->seed & 0x7fffffffffffull));
}

/* What a crash point matches: its classes (all: no class line) and the rest of its lines. */
struct point_match {
	uint32_t classes;
	const char *rest;
	bool sync;
};

static bool point_match(enum crash_point p, struct point_match *ret)
{
	static const struct point_match m[CRASH_POINTS] = {
		[CRASH_AT_WAL_WRITE] = { 1u << DUT_IO_WAL, "op = write\n", false },
		[CRASH_AT_WAL_FSYNC] = { 1u << DUT_IO_WAL, "op = sync\n", true },
		[CRASH_AT_HEAP_WRITE] = { 1u << DUT_IO_HEAP, "op = write\n", false },
		[CRASH_AT_INDEX_WRITE] = { 1u << DUT_IO_INDEX, "op = write\n", false },
		[CRASH_AT_DATA_FSYNC] = { CRASH_CLASSES_DATA | 1u << DUT_IO_SLRU, "op = sync\n", true },
		[CRASH_AT_PG_CONTROL] = { CRASH_CLASSES_ALL, "path = */global/pg_control\nop = write\n", false },
		[CRASH_AT_SLRU_WRITE] = { 1u << DUT_IO_SLRU, "op = write\n", false },
		[CRASH_AT_INIT] = { CRASH_CLASSES_ALL, "op = write\n", false },
	};

	if ((unsigned)p >= CRASH_POINTS || !m[p].rest)
		return false;
	*ret = m[p];
	return true;
}

/*
 * Rule name matching m, split by loss mode: one rule per mode whose classes
 * meet m's (name for the drawn mode's, name-MODE for a fixed one's), with the faults in
 * `faults` first, the EIO of fsync-eio on a sync rule of its classes, and
 * that mode's unsynced fault.
 */
static void emit_split(struct out *o, const struct crash_state *s, const char *name, const struct point_match *m,
		       const char *faults)
{
	enum crash_loss modes[CRASH_LOSSES];
	unsigned n = modes_present(s, modes), groups = 0;

	for (unsigned i = 0; i < n; i++)
		groups += (crash_state_loss_classes(s, modes[i]) & m->classes) != 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t g = crash_state_loss_classes(s, modes[i]) & m->classes;
		bool eio = m->sync && modes[i] == CRASH_LOSS_FSYNC_EIO && (g & CRASH_CLASSES_EIO);
		char fault[32];

		if (!g)
			continue;
		if (groups == 1 || modes[i] == s->loss)
			emit(o, "[rule %s]\n", name);
		else
			emit(o, "[rule %s-%s]\n", name, loss_fault(s, modes[i], fault, sizeof(fault)) + 5);
		if (g != CRASH_CLASSES_ALL)
			emit_classes(o, g);
		emit(o, "%sfault = %s%s%s\n\n", m->rest, eio ? "eio, " : "", faults,
		     loss_fault(s, modes[i], fault, sizeof(fault)));
	}
}

int crash_state_rules(const struct crash_state *s, char *buf, size_t len)
{
	struct out o = { buf, len, 0, false };
	enum crash_loss modes[CRASH_LOSSES];
	unsigned nmodes = modes_present(s, modes);
	uint32_t eio_classes = crash_state_loss_classes(s, CRASH_LOSS_FSYNC_EIO) & CRASH_CLASSES_EIO;
	struct point_match pm;
	bool point = point_match(s->point, &pm);
	char fault[32];

	if (!len)
		return -ENOSPC;
	buf[0] = 0;
	emit(&o, "; dutlab crash state %u (seed %llu): crash at %s, loss %s%s%s\n", s->index,
	     (unsigned long long)s->seed, crash_point_name(s->point), crash_loss_name(s->loss),
	     s->control ? ", " : "", s->control ? crash_control_name(s->control) : "");
	if (s->class_loss.fixed) {
		char spec[160];

		crash_class_loss_format(&s->class_loss, spec, sizeof(spec));
		emit(&o, "; loss by class: %s (--class-loss), every other class %s (drawn)\n", spec,
		     crash_loss_name(s->loss));
	}
	/* pgload's state file and the server log are the harness, not the database */
	emit(&o, "[model passthrough]\ntype = fixed\nread_latency = 0\nwrite_latency = 0\n\n"
		 "[rule harness]\npath = */pgload_*\nmodel = passthrough\n\n");
	for (unsigned i = 0; i < nmodes; i++)
		emit_unsynced(&o, s, modes[i]);
	if (point)
		emit(&o, "[fault point]\ntype = crash\nnth = %llu\n\n", (unsigned long long)s->nth);
	if (eio_classes)
		emit(&o, "[fault eio]\ntype = error\nerrno = EIO\nnth = %llu\n\n", (unsigned long long)s->eio_nth);
	if (point)
		emit_split(&o, s, "point", &pm, "point, ");
	/* after the point's rule: a sync it matched has the EIO there (one count: the fault's) */
	if (eio_classes) {
		emit(&o, "[rule eio]\n");
		emit_classes(&o, eio_classes);
		emit(&o, "op = sync\nfault = eio, %s\n\n", loss_fault(s, CRASH_LOSS_FSYNC_EIO, fault, sizeof(fault)));
	}
	/*
	 * The checkpoint point: data-file writes take 1 ms, so the CHECKPOINT's
	 * write phase (one page at a time, ~700 to 1700 pages here) lasts about
	 * a second, and the harness's crash 150 to 500 ms after its log line
	 * lands inside it, among the tables' pages (an immediate checkpoint
	 * otherwise wrote everything in 0.05 s here).
	 */
	if (s->point == CRASH_AT_CHECKPOINT) {
		static const struct point_match slow = { CRASH_CLASSES_DATA, "op = write\nmodel = slow-data\n", false };

		emit(&o, "[model slow-data]\ntype = fixed\nread_latency = 0\nwrite_latency = 1ms\n\n");
		emit_split(&o, s, "slow-data", &slow, "");
	}
	/* the classes of each fixed mode, then the drawn mode for everything else */
	for (unsigned i = 1; i < nmodes; i++) {
		emit(&o, "[rule %s]\n", loss_fault(s, modes[i], fault, sizeof(fault)));
		emit_classes(&o, crash_state_loss_classes(s, modes[i]));
		emit(&o, "fault = %s\n\n", fault);
	}
	emit(&o, "[rule all]\nfault = loss\n");
	return o.full ? -ENOSPC : 0;
}
