/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a crash during pgload init must leave (tools/crash/crash_load.c): the ack
 * log and the catalog query's output parsed, and the judge over a table of
 * (acknowledged, observed) cases: acknowledged is durable, the load is all
 * or nothing, keys are valid or absent, commits survive in commit order.
 */
#include <string.h>

#include "tests/cu_main.h"
#include "tools/crash/crash_load.h"

/* psql -At output of a fully loaded scale-1 database */
#define FULL_OBS "pgbench_accounts|r||100000\npgbench_accounts_pkey|i|true|\npgbench_branches|r||1\n" \
		 "pgbench_branches_pkey|i|true|\npgbench_history|r||0\npgbench_tellers|r||10\n"    \
		 "pgbench_tellers_pkey|i|true|\n"
#define ALL_ACKS "drop\ncreate pgbench_history\ncreate pgbench_tellers\ncreate pgbench_accounts\n" \
		 "create pgbench_branches\nload\nvacuum pgbench_branches\nvacuum pgbench_tellers\n"  \
		 "vacuum pgbench_accounts\nvacuum pgbench_history\nkey pgbench_branches\n"            \
		 "key pgbench_tellers\nkey pgbench_accounts\ncheckpoint\n"
#define CREATED "drop\ncreate pgbench_history\ncreate pgbench_tellers\ncreate pgbench_accounts\ncreate pgbench_branches\n"
#define TABLES_EMPTY "pgbench_accounts|r||0\npgbench_branches|r||0\npgbench_history|r||0\npgbench_tellers|r||0\n"
#define TABLES_FULL "pgbench_accounts|r||100000\npgbench_branches|r||1\npgbench_history|r||0\npgbench_tellers|r||10\n"

static void test_parses_ack_log_and_catalog(void)
{
	struct crash_load_acks a;
	struct crash_load_obs o;
	unsigned bad = 0;

	CU_ASSERT_FATAL(crash_load_parse_acks(ALL_ACKS, &a, &bad) == 0);
	CU_CHECK(a.n == 14 && a.drop && a.load && a.checkpoint && a.create[CRASH_LT_HISTORY] &&
		 a.key[CRASH_LT_ACCOUNTS] && a.vacuum[CRASH_LT_HISTORY] && !strcmp(a.last, "checkpoint"),
		 "acks: n %u last %s", a.n, a.last);
	CU_CHECK(crash_load_parse_acks("drop\nload pgbench_accounts\n", &a, &bad) == -EINVAL && bad == 2,
		 "an unknown line is refused (line %u)", bad);
	CU_CHECK(crash_load_parse_acks("key pgbench_history\n", &a, &bad) == -EINVAL, "history has no key");
	CU_CHECK(crash_load_parse_acks("", &a, &bad) == 0 && a.n == 0 && !a.last[0], "empty: nothing acknowledged");
	CU_ASSERT_FATAL(crash_load_parse_obs(FULL_OBS, &o) == 0);
	CU_CHECK(o.table[CRASH_LT_ACCOUNTS] && o.rows[CRASH_LT_ACCOUNTS] == 100000 && o.rows[CRASH_LT_TELLERS] == 10 &&
		 o.key[CRASH_LT_BRANCHES] && o.key_valid[CRASH_LT_BRANCHES] && !o.key[CRASH_LT_HISTORY],
		 "catalog parsed");
	CU_CHECK(crash_load_parse_obs("pgbench_accounts|r||x\n", &o) == -EINVAL, "a row count that is not a number");
	CU_CHECK(crash_load_parse_obs("pgbench_accounts|r\n", &o) == -EINVAL, "too few fields");
	CU_CHECK(crash_load_parse_obs("pgbench_accounts_pkey|i|false|\n", &o) == 0 && o.key[CRASH_LT_ACCOUNTS] &&
		 !o.key_valid[CRASH_LT_ACCOUNTS], "an invalid key");
}

static const struct {
	const char *name, *acks, *obs;
	unsigned findings;   /* 0: allowed; else at least one */
	const char *detail;  /* a word of the first finding */
} cases[] = {
	{ "nothing acknowledged, nothing there", "", "", 0, NULL },
	{ "everything acknowledged and there", ALL_ACKS, FULL_OBS, 0, NULL },
	{ "created, crash in the COPY: empty tables", CREATED, TABLES_EMPTY, 0, NULL },
	{ "load committed before its ack reached us", CREATED, TABLES_FULL, 0, NULL },
	{ "some creates not durable, not acknowledged", "drop\ncreate pgbench_history\n",
	  "pgbench_history|r||0\n", 0, NULL },
	{ "key committed, not acknowledged", CREATED "load\n",
	  TABLES_FULL "pgbench_branches_pkey|i|true|\n", 0, NULL },
	{ "acknowledged table missing", CREATED, "pgbench_history|r||0\npgbench_tellers|r||0\n", 1, "pgbench_accounts is missing" },
	{ "acknowledged load gone", CREATED "load\n", TABLES_EMPTY, 1, "acknowledged load" },
	{ "a partial COPY", CREATED, "pgbench_accounts|r||4000\npgbench_branches|r||1\npgbench_history|r||0\n"
	  "pgbench_tellers|r||10\n", 1, "partial COPY" },
	{ "one table of the transaction without the others", CREATED,
	  "pgbench_accounts|r||100000\npgbench_branches|r||0\npgbench_history|r||0\npgbench_tellers|r||0\n", 1, "half there" },
	{ "history gained rows", CREATED "load\n", TABLES_FULL "pgbench_history|r||3\n", 1, "pgbench_history has 3" },
	{ "acknowledged key gone", CREATED "load\nkey pgbench_branches\n", TABLES_FULL, 1, "pgbench_branches_pkey is missing" },
	{ "an invalid key", CREATED "load\n", TABLES_FULL "pgbench_tellers_pkey|i|false|\n", 1, "not valid" },
	{ "a key without the load before it", CREATED, TABLES_EMPTY "pgbench_accounts_pkey|i|true|\n", 1, "commit order" },
};

static void test_judge_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct crash_load_acks a;
		struct crash_load_obs o;
		char detail[300];
		unsigned bad = 0, n;

		if (crash_load_parse_acks(cases[i].acks, &a, &bad) < 0 || crash_load_parse_obs(cases[i].obs, &o) < 0) {
			cu_fail("%s: the case does not parse (ack line %u)", cases[i].name, bad);
			continue;
		}
		n = crash_load_judge(&a, &o, 1, detail, sizeof(detail));
		if (cases[i].findings ? n == 0 : n != 0)
			cu_fail("%s: %u findings, want %s (%s)", cases[i].name, n, cases[i].findings ? "some" : "none", detail);
		else if (cases[i].detail && !strstr(detail, cases[i].detail))
			cu_fail("%s: first finding \"%s\", want it to mention \"%s\"", cases[i].name, detail, cases[i].detail);
	}
}

static const struct cu_test tests[] = {
	{ "parses_ack_log_and_catalog", test_parses_ack_log_and_catalog },
	{ "judge_cases", test_judge_cases },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash_load", .tests = tests };
