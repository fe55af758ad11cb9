/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Script names, mixes and weighted choice; simple-protocol rendering; COPY rows. */
#include <stdio.h>
#include <string.h>

#include "pgload/datagen.h"
#include "pgload/script.h"
#include "tests/cu_main.h"

static void test_find_names_and_prefixes(void)
{
	static const struct { const char *in; int ret; const char *name; } rows[] = {
		{ "tpcb-like", 0, "tpcb-like" },
		{ "tpcb", 0, "tpcb-like" },
		{ "t", 0, "tpcb-like" },
		{ "simple-update", 0, "simple-update" },
		{ "select-only", 0, "select-only" },
		{ "sel", 0, "select-only" },
		{ "si", 0, "simple-update" },
		{ "s", -EINVAL, NULL },          /* ambiguous: simple-update, select-only */
		{ "", -EINVAL, NULL },
		{ "tpcc", -ENOENT, NULL },
		{ "select-only-x", -ENOENT, NULL },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pgl_script *s = NULL;
		struct dut_error err = { "" };
		int r = pgl_script_find(rows[i].in, &s, &err);

		CU_CHECK(r == rows[i].ret, "find(\"%s\") = %d, want %d", rows[i].in, r, rows[i].ret);
		if (rows[i].name)
			CU_CHECK(s && strcmp(s->name, rows[i].name) == 0, "find(\"%s\") gave %s",
				 rows[i].in, s ? s->name : "NULL");
		else
			CU_CHECK(strstr(err.msg, rows[i].in) && strstr(err.msg, "expected"),
				 "find(\"%s\"): message \"%s\" should quote the input and the choices",
				 rows[i].in, err.msg);
	}
}

static void test_mix_specs(void)
{
	static const struct { const char *spec; int ret; uint32_t weight; } rows[] = {
		{ "tpcb-like", 0, 1 },
		{ "tpcb-like@9", 0, 9 },
		{ "select-only@0", 0, 0 },
		{ "se@1000000", 0, 1000000 },
		{ "tpcb-like@1000001", -EINVAL, 0 },
		{ "tpcb-like@", -EINVAL, 0 },
		{ "tpcb-like@-1", -EINVAL, 0 },
		{ "tpcb-like@1x", -EINVAL, 0 },
		{ "nosuch@1", -ENOENT, 0 },
		{ "@1", -EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_mix m;
		struct dut_error err = { "" };
		int r;

		pgl_mix_init(&m);
		r = pgl_mix_add(&m, rows[i].spec, &err);
		CU_CHECK(r == rows[i].ret, "mix_add(\"%s\") = %d, want %d (%s)", rows[i].spec, r,
			 rows[i].ret, err.msg);
		if (r == 0)
			CU_CHECK(m.n == 1 && m.e[0].weight == rows[i].weight && m.total_weight == rows[i].weight,
				 "mix_add(\"%s\"): weight %u", rows[i].spec, m.e[0].weight);
		else
			CU_CHECK(err.msg[0] != '\0', "mix_add(\"%s\") failed without a message", rows[i].spec);
	}
}

static void test_mix_validate(void)
{
	struct pgl_mix m;
	struct dut_error err = { "" };

	pgl_mix_init(&m);
	CU_CHECK(pgl_mix_validate(&m, &err) == -EINVAL, "an empty mix must be refused");
	pgl_mix_add(&m, "tpcb-like@0", NULL);
	pgl_mix_add(&m, "select-only@0", NULL);
	CU_CHECK(pgl_mix_validate(&m, &err) == -EINVAL && strstr(err.msg, "zero"),
		 "all-zero weights must be refused: %s", err.msg);
	for (int i = 0; i < PGL_MAX_MIX - 2; i++)
		CU_CHECK(pgl_mix_add(&m, "tpcb@1", NULL) == 0, "add %d", i);
	CU_CHECK(pgl_mix_add(&m, "tpcb@1", &err) == -E2BIG, "more than %d scripts must be refused",
		 PGL_MAX_MIX);
}

static void test_mix_choice_follows_weights(void)
{
	struct pgl_mix m;
	struct pgl_rng rng;
	unsigned counts[3] = { 0 };
	const unsigned n = 100000;

	pgl_mix_init(&m);
	pgl_mix_add(&m, "tpcb-like@1", NULL);
	pgl_mix_add(&m, "simple-update@0", NULL);
	pgl_mix_add(&m, "select-only@9", NULL);
	/* Boundaries: u in [0,1) -> 0, [1,1) empty, [1,10) -> 2. */
	CU_CHECK(pgl_mix_choose(&m, 0) == 0, "u=0");
	CU_CHECK(pgl_mix_choose(&m, 1) == 2, "u=1 skips the zero-weight entry");
	CU_CHECK(pgl_mix_choose(&m, 9) == 2, "u=9");
	pgl_rng_seed(&rng, 42);
	for (unsigned i = 0; i < n; i++)
		counts[pgl_mix_pick(&m, &rng)]++;
	CU_CHECK(counts[1] == 0, "weight 0 chosen %u times", counts[1]);
	/* 10% +- 0.6% (about 6 sigma for n = 1e5). */
	CU_CHECK(counts[0] > 9400 && counts[0] < 10600, "tpcb-like@1 of 10 chosen %u / %u",
		 counts[0], n);
}

static void test_draw_ranges(void)
{
	struct pgl_rng rng;
	int64_t v[PGL_NVARS];
	int64_t min_aid = INT64_MAX, max_aid = 0, min_d = 0, max_d = 0;

	pgl_rng_seed(&rng, 7);
	for (int i = 0; i < 200000; i++) {
		pgl_builtin_scripts[0]->draw(&rng, 3, v);
		if (v[PGL_VAR_AID] < min_aid) min_aid = v[PGL_VAR_AID];
		if (v[PGL_VAR_AID] > max_aid) max_aid = v[PGL_VAR_AID];
		if (v[PGL_VAR_DELTA] < min_d) min_d = v[PGL_VAR_DELTA];
		if (v[PGL_VAR_DELTA] > max_d) max_d = v[PGL_VAR_DELTA];
		CU_CHECK(v[PGL_VAR_BID] >= 1 && v[PGL_VAR_BID] <= 3, "bid %lld", (long long)v[PGL_VAR_BID]);
		CU_CHECK(v[PGL_VAR_TID] >= 1 && v[PGL_VAR_TID] <= 30, "tid %lld", (long long)v[PGL_VAR_TID]);
	}
	CU_CHECK(min_aid >= 1 && max_aid <= 300000 && max_aid > 299000, "aid range %lld..%lld",
		 (long long)min_aid, (long long)max_aid);
	CU_CHECK(min_d == -5000 && max_d == 5000, "delta range %lld..%lld", (long long)min_d,
		 (long long)max_d);
}

static void test_render_simple_protocol(void)
{
	int64_t v[PGL_NVARS] = { [PGL_VAR_AID] = 123456, [PGL_VAR_BID] = 2, [PGL_VAR_TID] = 17,
				 [PGL_VAR_DELTA] = -4999 };
	const struct pgl_script *tpcb = NULL;
	char buf[256], small[20];
	int r;

	pgl_script_find("tpcb-like", &tpcb, NULL);
	r = pgl_stmt_render(&tpcb->stmts[1], v, buf, sizeof(buf));
	CU_CHECK(r > 0 && strcmp(buf, "UPDATE pgbench_accounts SET abalance = abalance + -4999 WHERE aid = 123456") == 0,
		 "rendered \"%s\"", buf);
	r = pgl_stmt_render(&tpcb->stmts[5], v, buf, sizeof(buf));
	CU_CHECK(strstr(buf, "VALUES (17, 2, 123456, -4999, CURRENT_TIMESTAMP)") != NULL, "rendered \"%s\"", buf);
	r = pgl_stmt_render(&tpcb->stmts[0], v, buf, sizeof(buf));
	CU_CHECK(r == 5 && strcmp(buf, "BEGIN") == 0, "rendered \"%s\"", buf);
	r = pgl_stmt_render(&tpcb->stmts[1], v, small, sizeof(small));
	CU_CHECK(r == -ENOSPC && strlen(small) < sizeof(small), "small buffer: %d", r);
}

static void test_i64_to_text(void)
{
	static const struct { int64_t v; const char *s; } rows[] = {
		{ 0, "0" }, { 7, "7" }, { -5000, "-5000" }, { 100000, "100000" },
		{ INT64_MAX, "9223372036854775807" }, { INT64_MIN, "-9223372036854775808" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[24];
		unsigned n = pgl_i64_to_text(rows[i].v, buf);

		CU_CHECK(strcmp(buf, rows[i].s) == 0 && n == strlen(rows[i].s), "%s -> %s", rows[i].s, buf);
	}
}

/* The generator must produce byte-for-byte what pgbench -i's printf formats send. */
static void test_copy_rows_match_pgbench(void)
{
	static const struct { enum pgl_table t; int64_t first, last; } rows[] = {
		{ PGL_T_BRANCHES, 1, 3 }, { PGL_T_TELLERS, 1, 25 }, { PGL_T_ACCOUNTS, 99990, 200011 },
		{ PGL_T_ACCOUNTS, 2147483600, 2147483647 },
	};
	static char got[1 << 16], want[1 << 16];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int64_t next = rows[i].first;
		size_t glen = 0, wlen = 0;

		while (next <= rows[i].last) {
			size_t n = pgl_gen_rows(rows[i].t, &next, rows[i].last, got + glen, 4096);

			CU_CHECK(n > 0, "row %zu: no progress", i);
			if (!n)
				break;
			glen += n;
			if (glen > sizeof(got) - 4096)
				break;
		}
		for (int64_t k = rows[i].first; k < next; k++) {
			if (rows[i].t == PGL_T_BRANCHES)
				wlen += (size_t)sprintf(want + wlen, "%lld\t0\t\n", (long long)k);
			else
				wlen += (size_t)sprintf(want + wlen, "%lld\t%lld\t0\t\n", (long long)k,
							(long long)((k - 1) / (rows[i].t == PGL_T_TELLERS ? 10 : 100000) + 1));
		}
		CU_CHECK(glen == wlen && memcmp(got, want, glen) == 0, "table %d rows %lld..: %zu vs %zu bytes",
			 rows[i].t, (long long)rows[i].first, glen, wlen);
	}
}

static void test_copy_rows_small_buffer(void)
{
	char buf[PGL_ROW_MAX - 1];
	int64_t next = 5;

	CU_CHECK(pgl_gen_rows(PGL_T_ACCOUNTS, &next, 10, buf, sizeof(buf)) == 0 && next == 5,
		 "a buffer smaller than one row must not be written");
	next = 11;
	CU_CHECK(pgl_gen_rows(PGL_T_ACCOUNTS, &next, 10, buf, sizeof(buf)) == 0, "empty range");
}

static const struct cu_test tests[] = {
	{ "find_names_and_prefixes", test_find_names_and_prefixes },
	{ "mix_specs", test_mix_specs },
	{ "mix_validate", test_mix_validate },
	{ "mix_choice_follows_weights", test_mix_choice_follows_weights },
	{ "draw_ranges", test_draw_ranges },
	{ "render_simple_protocol", test_render_simple_protocol },
	{ "i64_to_text", test_i64_to_text },
	{ "copy_rows_match_pgbench", test_copy_rows_match_pgbench },
	{ "copy_rows_small_buffer", test_copy_rows_small_buffer },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_script", .tests = tests };
