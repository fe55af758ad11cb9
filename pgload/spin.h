/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Spin before sleeping, for a thread that drives one client.
 *
 * At one client per thread, each statement is a round trip the client
 * sleeps through: the server answers in 30-100 us, and waking a sleeping
 * thread (an idle vCPU, the scheduler) adds ~10 us to every one of them.
 * Polling the socket for a short while first removes that from the round
 * trip, the way polled I/O does for storage.  It is adaptive per script:
 * a script spins only while every one of its statements answers, on
 * average, within the budget.  A transaction with a slow round (a commit
 * waiting for its WAL flush) is not spun on at all: measured on a 2-CPU VM,
 * spinning on the fast statements of an fsync-bound tpcb-like transaction
 * cost 15 % of its rate (even yielding the CPU at every turn), while
 * select-only and tpcb-like with synchronous_commit=off gained 15-25 %.
 *
 * Pure code: the decision and the bookkeeping.  run.c does the polling.
 */
#ifndef PGL_SPIN_H
#define PGL_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "pgload/script.h"

enum pgl_spin_mode { PGL_SPIN_AUTO, PGL_SPIN_OFF, PGL_SPIN_FIXED };

#define PGL_SPIN_AUTO_NS 150000ull      /* auto budget: 150 us */
#define PGL_SPIN_MAX_US 10000           /* --spin USEC upper bound */
/* Scripts of the mix, plus one row for everything else (ROLLBACK, pipelined syncs). */
#define PGL_SPIN_ROWS (PGL_MAX_MIX + 1)

struct pgl_spin {
	uint64_t budget_ns;             /* 0: never spin */
	/* Moving average (1/8) of each statement's round trip, 0 = none yet: */
	uint64_t rtt_ns[PGL_SPIN_ROWS][PGL_MAX_STMTS];
	unsigned slow[PGL_SPIN_ROWS];   /* statements of the row averaging over the budget */
	uint64_t hits, misses, skips;   /* waits ended in the spin / spun then slept / not spun */
};

/* Where a round's statistics go: its script and statement, or the "other" row. */
struct pgl_spin_slot {
	unsigned row, stmt;
};

/*
 * The budget a run gets: FIXED spins fixed_ns wherever a thread drives one
 * client; AUTO spins PGL_SPIN_AUTO_NS only when every thread drives one
 * client and each client plus its server backend can have a CPU of its own
 * (2 * clients <= ncpu), so spinning never takes a CPU from the server.
 */
uint64_t pgl_spin_budget(enum pgl_spin_mode mode, uint64_t fixed_ns, unsigned clients,
			 unsigned threads, long ncpu);
int pgl_spin_parse(const char *s, enum pgl_spin_mode *mode, uint64_t *fixed_ns);
struct pgl_spin_slot pgl_spin_slot(unsigned script, unsigned stmt, bool other);
void pgl_spin_init(struct pgl_spin *s, uint64_t budget_ns);
/* Is waiting for this round's answer worth a spin? (Counts a skip when not.) */
bool pgl_spin_worth(struct pgl_spin *s, struct pgl_spin_slot slot);
/* The answer of a round on this slot came rtt_ns after the send. */
void pgl_spin_note(struct pgl_spin *s, struct pgl_spin_slot slot, uint64_t rtt_ns);

#endif
