/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ledger check (pgload/ledger.c): files against what the database holds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/ledger.h"
#include "tests/cu_main.h"

static void parse(struct pgl_ledger *l, const char *text)
{
	struct dut_error err = { "" };

	CU_CHECK(pgl_ledger_parse(l, text, strlen(text), "t.ledger", &err) == 0, "parse: %s", err.msg);
}

static void add_ids(struct pgl_ids *a, const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pgl_ids_add(a, ids[i]);
}

/* A database consistent with ids (both tables, balances moved by the deltas). */
static void db_with(struct pgl_ledger_db *d, const int64_t *ids, size_t n)
{
	memset(d, 0, sizeof(*d));
	add_ids(&d->txn, ids, n);
	add_ids(&d->item, ids, n);
	d->txn_delta_sum = d->abalance_moved = d->tbalance_moved = d->bbalance_moved = d->history_moved = 42;
	d->history_rows_added = (int64_t)n;
}

static void test_parses_lines_and_ignores_a_cut_last_line(void)
{
	struct pgl_ledger l = { 0 };
	struct dut_error err = { "" };
	static const char bad[][24] = { "X 1\n", "B\n", "B -3\n", "C 12a\n", "\n", "B 0\n" };

	parse(&l, "B 4294967297\nC 4294967297\nB 4294967298\n");
	parse(&l, "B 8589934593\nC 85899");   /* the writer died mid-line */
	CU_CHECK(l.begun.n == 3 && l.acked.n == 1 && l.partial_lines == 1, "begun %zu acked %zu partial %llu",
		 l.begun.n, l.acked.n, (unsigned long long)l.partial_lines);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_CHECK(pgl_ledger_parse(&l, bad[i], strlen(bad[i]), "t.ledger", &err) == -EINVAL,
			 "row %zu accepted", i);
	CU_CHECK(strstr(err.msg, "t.ledger:1:") != NULL, "error names the file and line: %s", err.msg);
	pgl_ledger_free(&l);
}

static void test_intact_database_passes(void)
{
	struct pgl_ledger l = { 0 };
	struct pgl_ledger_db d;
	struct pgl_ledger_verdict v;
	/* 1, 2 acknowledged; 3 in flight and committed; 4 in flight and absent */
	const int64_t ids[] = { 1, 2, 3 };

	parse(&l, "B 1\nC 1\nB 2\nC 2\nB 3\n");
	parse(&l, "B 4\n");
	db_with(&d, ids, 3);
	pgl_ledger_check(&l, &d, &v);
	CU_CHECK(v.ok && v.acked == 2 && v.in_flight == 2 && v.in_flight_present == 1 && v.present == 3,
		 "ok %d acked %llu in flight %llu present %llu", v.ok, (unsigned long long)v.acked,
		 (unsigned long long)v.in_flight, (unsigned long long)v.present);
	pgl_ledger_db_free(&d);
	pgl_ledger_free(&l);
}

static void test_damage_is_named(void)
{
	static const struct {
		const char *name;
		int64_t txn[4], item[4];
		size_t ntxn, nitem;
		int64_t hist_rows;
		uint64_t lost, half, unexpected;
		bool balances;
	} rows[] = {
		{ "intact", { 1, 2, 3 }, { 1, 2, 3 }, 3, 3, 3, 0, 0, 0, true },
		{ "lost commit", { 1, 3 }, { 1, 3 }, 2, 2, 2, 1, 0, 0, true },
		{ "half-present acked", { 1, 2, 3 }, { 1, 3 }, 3, 2, 3, 0, 1, 0, true },
		{ "half-present in flight", { 1, 2, 3, 5 }, { 1, 2, 3 }, 4, 3, 4, 0, 1, 0, true },
		{ "never reached COMMIT", { 1, 2, 3, 9 }, { 1, 2, 3, 9 }, 4, 4, 4, 0, 0, 1, true },
		{ "history row count", { 1, 2, 3 }, { 1, 2, 3 }, 3, 3, 2, 0, 0, 0, false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_ledger l = { 0 };
		struct pgl_ledger_db d;
		struct pgl_ledger_verdict v;
		bool want_ok;

		parse(&l, "B 1\nC 1\nB 2\nC 2\nB 3\nC 3\nB 5\n");
		db_with(&d, NULL, 0);
		add_ids(&d.txn, rows[i].txn, rows[i].ntxn);
		add_ids(&d.item, rows[i].item, rows[i].nitem);
		d.history_rows_added = rows[i].hist_rows;
		pgl_ledger_check(&l, &d, &v);
		want_ok = !rows[i].lost && !rows[i].half && !rows[i].unexpected && rows[i].balances;
		CU_CHECK(v.lost == rows[i].lost && v.half == rows[i].half && v.unexpected == rows[i].unexpected &&
			 v.balances_agree == rows[i].balances && v.ok == want_ok,
			 "%s: lost %llu half %llu unexpected %llu balances %d ok %d", rows[i].name,
			 (unsigned long long)v.lost, (unsigned long long)v.half, (unsigned long long)v.unexpected,
			 v.balances_agree, v.ok);
		if (rows[i].lost)
			CU_CHECK(v.lost_ids[0] == 2, "%s: lost id %lld", rows[i].name, (long long)v.lost_ids[0]);
		pgl_ledger_db_free(&d);
		pgl_ledger_free(&l);
	}
}

static void test_balance_sums_must_follow_the_deltas(void)
{
	static const char *const which[] = { "abalance", "tbalance", "bbalance", "history", "accounts" };

	for (size_t i = 0; i < 5; i++) {
		struct pgl_ledger l = { 0 };
		struct pgl_ledger_db d;
		struct pgl_ledger_verdict v;
		const int64_t ids[] = { 1 };

		parse(&l, "B 1\nC 1\n");
		db_with(&d, ids, 1);
		switch (i) {
		case 0: d.abalance_moved++; break;
		case 1: d.tbalance_moved--; break;
		case 2: d.bbalance_moved = 0; break;
		case 3: d.history_moved = 7; break;
		case 4: d.accounts_off = 1; break;
		}
		pgl_ledger_check(&l, &d, &v);
		CU_CHECK(!v.ok && !v.balances_agree && v.balance_detail[0], "%s: not detected", which[i]);
		pgl_ledger_db_free(&d);
		pgl_ledger_free(&l);
	}
}

static void test_verdict_json_carries_the_counts(void)
{
	struct pgl_ledger_verdict v = { .acked = 10, .lost = 2, .lost_ids = { 7, 8 }, .ok = false };
	struct json_object *o = pgl_ledger_verdict_json(&v), *x;

	CU_CHECK(o && json_object_object_get_ex(o, "lost", &x) && json_object_get_int64(x) == 2, "lost");
	CU_CHECK(json_object_object_get_ex(o, "lost_ids", &x) && json_object_array_length(x) == 2, "lost_ids");
	CU_CHECK(json_object_object_get_ex(o, "ok", &x) && !json_object_get_boolean(x), "ok");
	json_object_put(o);
}

static void test_ids_are_client_and_sequence(void)
{
	CU_CHECK(pgl_ledger_id(0, 1) == 4294967297ll, "client 0 txn 1");
	CU_CHECK(pgl_ledger_id(3, 5) == (4ll << 32) + 5, "client 3 txn 5");
}

static const struct cu_test tests[] = {
	{ "parses_lines_and_ignores_a_cut_last_line", test_parses_lines_and_ignores_a_cut_last_line },
	{ "intact_database_passes", test_intact_database_passes },
	{ "damage_is_named", test_damage_is_named },
	{ "balance_sums_must_follow_the_deltas", test_balance_sums_must_follow_the_deltas },
	{ "verdict_json_carries_the_counts", test_verdict_json_carries_the_counts },
	{ "ids_are_client_and_sequence", test_ids_are_client_and_sequence },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "ledger", .tests = tests };
