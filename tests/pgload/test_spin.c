/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spin-before-sleep policy (pgload/spin.h): budgets, parsing, the per-statement average. */
#include <errno.h>
#include <stdbool.h>

#include "pgload/spin.h"
#include "tests/cu_main.h"

static void test_budget(void)
{
	static const struct {
		enum pgl_spin_mode mode;
		uint64_t fixed;
		unsigned clients, threads;
		long ncpu;
		uint64_t want;
	} rows[] = {
		{ PGL_SPIN_AUTO, 0, 1, 1, 2, PGL_SPIN_AUTO_NS },   /* client + backend fit */
		{ PGL_SPIN_AUTO, 0, 2, 2, 2, 0 },                  /* two spinners, two backends, 2 CPUs */
		{ PGL_SPIN_AUTO, 0, 2, 2, 4, PGL_SPIN_AUTO_NS },
		{ PGL_SPIN_AUTO, 0, 8, 2, 64, 0 },                 /* a thread drives 4 clients */
		{ PGL_SPIN_AUTO, 0, 1, 1, 1, 0 },                  /* one CPU: never */
		{ PGL_SPIN_AUTO, 0, 1, 1, -1, 0 },                 /* CPU count unknown */
		{ PGL_SPIN_OFF, 0, 1, 1, 64, 0 },
		{ PGL_SPIN_FIXED, 40000, 8, 2, 2, 40000 },         /* asked for: given */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t got = pgl_spin_budget(rows[i].mode, rows[i].fixed, rows[i].clients,
					       rows[i].threads, rows[i].ncpu);

		if (got != rows[i].want)
			cu_fail("row %zu: budget %llu ns, want %llu", i, (unsigned long long)got,
				(unsigned long long)rows[i].want);
	}
}

static void test_parse(void)
{
	static const struct {
		const char *s;
		int ret;
		enum pgl_spin_mode mode;
		uint64_t ns;
	} rows[] = {
		{ "auto", 0, PGL_SPIN_AUTO, 0 },
		{ "off", 0, PGL_SPIN_OFF, 0 },
		{ "0", 0, PGL_SPIN_OFF, 0 },
		{ "1", 0, PGL_SPIN_FIXED, 1000 },
		{ "150", 0, PGL_SPIN_FIXED, 150000 },
		{ "10000", 0, PGL_SPIN_FIXED, 10000000 },
		{ "10001", -EINVAL, 0, 0 },
		{ "-5", -EINVAL, 0, 0 },
		{ "50us", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "on", -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum pgl_spin_mode m = PGL_SPIN_AUTO;
		uint64_t ns = 12345;
		int r = pgl_spin_parse(rows[i].s, &m, &ns);

		if (r != rows[i].ret)
			cu_fail("\"%s\": returned %d, want %d", rows[i].s, r, rows[i].ret);
		else if (r == 0 && (m != rows[i].mode || ns != rows[i].ns))
			cu_fail("\"%s\": mode %d %llu ns, want %d %llu", rows[i].s, m,
				(unsigned long long)ns, rows[i].mode, (unsigned long long)rows[i].ns);
	}
}

static bool slot_is(struct pgl_spin_slot s, unsigned row, unsigned stmt)
{
	return s.row == row && s.stmt == stmt;
}

static void test_slots(void)
{
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(0, 0, false), 0, 0));
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(1, 2, false), 1, 2));
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(PGL_MAX_MIX - 1, PGL_MAX_STMTS - 1, false),
			       PGL_MAX_MIX - 1, PGL_MAX_STMTS - 1));
	/* ROLLBACK and pipelined rounds share the "other" row; out-of-range too. */
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(3, 1, true), PGL_MAX_MIX, 0));
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(PGL_MAX_MIX, 0, false), PGL_MAX_MIX, 0));
	CU_ASSERT_TRUE(slot_is(pgl_spin_slot(0, PGL_MAX_STMTS, false), PGL_MAX_MIX, 0));
}

/*
 * select-only (script 0, one fast statement) is spun on; tpcb-like
 * (script 1) is not, once its commit is seen to wait for the WAL flush:
 * neither its commit nor its fast statements.
 */
static void test_fast_and_slow_scripts(void)
{
	struct pgl_spin s;
	struct pgl_spin_slot sel = pgl_spin_slot(0, 0, false);
	struct pgl_spin_slot upd = pgl_spin_slot(1, 1, false), commit = pgl_spin_slot(1, 6, false);

	pgl_spin_init(&s, 150000);
	CU_ASSERT_TRUE(pgl_spin_worth(&s, sel));    /* nothing known yet: try */
	CU_ASSERT_TRUE(pgl_spin_worth(&s, upd));
	CU_ASSERT_TRUE(pgl_spin_worth(&s, commit));
	for (int i = 0; i < 50; i++) {
		pgl_spin_note(&s, sel, 40000);
		pgl_spin_note(&s, upd, 60000);
		pgl_spin_note(&s, commit, 400000);
	}
	CU_ASSERT_TRUE(pgl_spin_worth(&s, sel));
	CU_ASSERT_FALSE(pgl_spin_worth(&s, upd));
	CU_ASSERT_FALSE(pgl_spin_worth(&s, commit));
	CU_ASSERT_EQUAL(s.skips, 2);
	CU_ASSERT_EQUAL(s.slow[1], 1);
	CU_ASSERT_EQUAL(s.slow[0], 0);
	/* Samples count as at most twice the budget. */
	CU_ASSERT_EQUAL(s.rtt_ns[1][6], 300000);
	CU_ASSERT_EQUAL(s.rtt_ns[0][0], 40000);

	/* The commit gets fast (synchronous_commit off, a faster device): spin again. */
	for (int i = 0; i < 30; i++)
		pgl_spin_note(&s, commit, 30000);
	CU_ASSERT_EQUAL(s.slow[1], 0);
	CU_ASSERT_TRUE(pgl_spin_worth(&s, upd));
	CU_ASSERT_TRUE(pgl_spin_worth(&s, commit));
}

/* One stall does not stop the spinning for more than a few rounds. */
static void test_one_stall(void)
{
	struct pgl_spin s;
	struct pgl_spin_slot slot = pgl_spin_slot(0, 0, false);
	int rounds = 0;

	pgl_spin_init(&s, 150000);
	for (int i = 0; i < 50; i++)
		pgl_spin_note(&s, slot, 50000);
	pgl_spin_note(&s, slot, 20000000); /* 20 ms: the backend was preempted */
	CU_ASSERT_TRUE(pgl_spin_worth(&s, slot)); /* 50 + (300 - 50) / 8 us < 150 */
	/* Even a run of stalls needs few ordinary rounds to get back under. */
	for (int i = 0; i < 8; i++)
		pgl_spin_note(&s, slot, 20000000);
	CU_ASSERT_EQUAL(s.slow[0], 1);
	while (!pgl_spin_worth(&s, slot) && rounds < 100) {
		pgl_spin_note(&s, slot, 50000);
		rounds++;
	}
	CU_ASSERT_TRUE(rounds > 0 && rounds < 12);
	CU_ASSERT_EQUAL(s.slow[0], 0);
}

static void test_off_never_spins(void)
{
	struct pgl_spin s;
	struct pgl_spin_slot slot = pgl_spin_slot(0, 0, false);

	pgl_spin_init(&s, 0);
	CU_ASSERT_FALSE(pgl_spin_worth(&s, slot));
	pgl_spin_note(&s, slot, 1000);
	CU_ASSERT_FALSE(pgl_spin_worth(&s, slot));
	CU_ASSERT_EQUAL(s.skips, 0); /* not spinning at all is not a skip */
}

static const struct cu_test tests[] = {
	{ "budget", test_budget },
	{ "parse", test_parse },
	{ "slots", test_slots },
	{ "fast_and_slow_scripts", test_fast_and_slow_scripts },
	{ "one_stall", test_one_stall },
	{ "off_never_spins", test_off_never_spins },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_spin", .tests = tests };
