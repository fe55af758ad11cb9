/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/spin.h"

uint64_t pgl_spin_budget(enum pgl_spin_mode mode, uint64_t fixed_ns, unsigned clients,
			 unsigned threads, long ncpu)
{
	switch (mode) {
	case PGL_SPIN_OFF:
		return 0;
	case PGL_SPIN_FIXED:
		return fixed_ns;
	case PGL_SPIN_AUTO:
		if (threads == clients && ncpu > 0 && 2ull * clients <= (unsigned long long)ncpu)
			return PGL_SPIN_AUTO_NS;
		return 0;
	}
	return 0;
}

int pgl_spin_parse(const char *s, enum pgl_spin_mode *mode, uint64_t *fixed_ns)
{
	char *end;
	long v;

	*fixed_ns = 0;
	if (!strcmp(s, "auto")) {
		*mode = PGL_SPIN_AUTO;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "0")) {
		*mode = PGL_SPIN_OFF;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > PGL_SPIN_MAX_US)
		return -EINVAL;
	*mode = PGL_SPIN_FIXED;
	*fixed_ns = (uint64_t)v * 1000ull;
	return 0;
}

struct pgl_spin_slot pgl_spin_slot(unsigned script, unsigned stmt, bool other)
{
	if (other || script >= PGL_MAX_MIX || stmt >= PGL_MAX_STMTS)
		return (struct pgl_spin_slot){ PGL_MAX_MIX, 0 };
	return (struct pgl_spin_slot){ script, stmt };
}

void pgl_spin_init(struct pgl_spin *s, uint64_t budget_ns)
{
	memset(s, 0, sizeof(*s));
	s->budget_ns = budget_ns;
}

bool pgl_spin_worth(struct pgl_spin *s, struct pgl_spin_slot slot)
{
	if (!s->budget_ns)
		return false;
	if (s->slow[slot.row]) {
		s->skips++;
		return false;
	}
	return true;
}

void pgl_spin_note(struct pgl_spin *s, struct pgl_spin_slot slot, uint64_t rtt_ns)
{
	uint64_t *a = &s->rtt_ns[slot.row][slot.stmt];
	bool was_slow = *a > s->budget_ns;

	/*
	 * The first sample sets the average; later ones move it by 1/8.  A sample
	 * counts as at most twice the budget, so one stall (the client or the
	 * backend preempted for a few ms) cannot stop the spinning for long:
	 * only statements that are slow again and again stay above the budget.
	 */
	if (s->budget_ns && rtt_ns > 2 * s->budget_ns)
		rtt_ns = 2 * s->budget_ns;
	*a = *a ? *a - *a / 8 + rtt_ns / 8 : rtt_ns;
	if (!s->budget_ns)
		return;
	if (*a > s->budget_ns && !was_slow)
		s->slow[slot.row]++;
	else if (*a <= s->budget_ns && was_slow)
		s->slow[slot.row]--;
}
