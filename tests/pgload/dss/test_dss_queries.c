/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Query texts and substitution parameters: the specification's validation
 * defaults land in the texts, random parameters follow the substitution
 * rules and are reproducible from (seed, stream), and no placeholder is
 * left behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "pgload/dss/queries.h"
#include "tests/cu_main.h"

static char *text_of(unsigned q, bool random, uint64_t seed, uint64_t stream, double sf,
		     struct dss_qparams *p)
{
	char *sql = NULL;
	int ret = dss_query_params(q, random, seed, stream, sf, p);

	if (ret == 0)
		ret = dss_query_text(q, p, &sql);
	CU_CHECK(ret == 0, "Q%u: %d", q, ret);
	return sql;
}

static void test_default_texts(void)
{
	static const struct { unsigned q; const char *fragment; } rows[] = {
		{ 1, "date '1998-12-01' - interval '90 days'" },
		{ 2, "p_size = 15 and p_type like '%BRASS'" },
		{ 2, "r_name = 'EUROPE')" },
		{ 3, "c_mktsegment = 'BUILDING'" },
		{ 4, "o_orderdate >= date '1993-07-01'" },
		{ 6, "l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24" },
		{ 7, "(n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE')" },
		{ 8, "p_type = 'ECONOMY ANODIZED STEEL'" },
		{ 9, "p_name like '%green%'" },
		{ 11, "* 0.01 from" },   /* 0.0001 / SF at SF 0.01 */
		{ 13, "o_comment not like '%special%requests%'" },
		{ 16, "p_size in (49, 14, 23, 45, 19, 3, 36, 9)" },
		{ 17, "p_brand = 'Brand#23' and p_container = 'MED BOX'" },
		{ 18, "having sum(l_quantity) > 300)" },
		{ 19, "p_brand = 'Brand#34'" },
		{ 20, "p_name like 'forest%'" },
		{ 21, "n_name = 'SAUDI ARABIA'" },
		{ 22, "('13', '31', '23', '29', '30', '18', '17')" },
	};
	for (unsigned q = 1; q <= DSS_NQUERIES; q++) {
		struct dss_qparams p;
		_cleanup_free_ char *sql = text_of(q, false, 0, 0, 0.01, &p);
		CU_CHECK(sql && !strchr(sql, '{') && !strchr(sql, '}') && dss_query_title(q),
			 "Q%u: placeholder left or no title: %s", q, sql ? sql : "");
		for (size_t i = 0; sql && i < DUT_ARRAY_SIZE(rows); i++)
			if (rows[i].q == q)
				CU_CHECK(strstr(sql, rows[i].fragment), "Q%u lacks \"%s\": %s", q,
					 rows[i].fragment, sql);
	}
	struct dss_qparams p;
	dss_query_params(11, false, 0, 0, 1, &p);
	CU_CHECK(strcmp(p.v[1], "0.0001") == 0, "Q11 fraction at SF 1: %s", p.v[1]);
	CU_CHECK(dss_query_params(0, false, 0, 0, 1, &p) == -EINVAL &&
		 dss_query_params(23, false, 0, 0, 1, &p) == -EINVAL && !dss_query_template(23),
		 "query numbers outside 1..22 are refused");
	struct dss_qparams few = { .n = 1 };
	char *sql = NULL;
	CU_CHECK(dss_query_text(2, &few, &sql) == -EINVAL && !sql, "Q2 with one parameter is refused");
}

/* The specification's nation -> region map, for Q8. */
static const struct { const char *nation, *region; } nation_region[] = {
	{ "ALGERIA", "AFRICA" }, { "ARGENTINA", "AMERICA" }, { "BRAZIL", "AMERICA" },
	{ "CANADA", "AMERICA" }, { "EGYPT", "MIDDLE EAST" }, { "ETHIOPIA", "AFRICA" },
	{ "FRANCE", "EUROPE" }, { "GERMANY", "EUROPE" }, { "INDIA", "ASIA" },
	{ "INDONESIA", "ASIA" }, { "IRAN", "MIDDLE EAST" }, { "IRAQ", "MIDDLE EAST" },
	{ "JAPAN", "ASIA" }, { "JORDAN", "MIDDLE EAST" }, { "KENYA", "AFRICA" },
	{ "MOROCCO", "AFRICA" }, { "MOZAMBIQUE", "AFRICA" }, { "PERU", "AMERICA" },
	{ "CHINA", "ASIA" }, { "ROMANIA", "EUROPE" }, { "SAUDI ARABIA", "MIDDLE EAST" },
	{ "VIETNAM", "ASIA" }, { "RUSSIA", "EUROPE" }, { "UNITED KINGDOM", "EUROPE" },
	{ "UNITED STATES", "AMERICA" },
};

static bool distinct_ints(const struct dss_qparams *p, unsigned from, unsigned n, int lo, int hi)
{
	for (unsigned i = from; i < from + n; i++) {
		int v = atoi(p->v[i]);
		if (v < lo || v > hi)
			return false;
		for (unsigned j = from; j < i; j++)
			if (strcmp(p->v[i], p->v[j]) == 0)
				return false;
	}
	return true;
}

static void test_random_parameters(void)
{
	unsigned differ[DSS_NQUERIES + 1] = { 0 };

	for (uint64_t seed = 1; seed <= 40; seed++) {
		for (unsigned q = 1; q <= DSS_NQUERIES; q++) {
			struct dss_qparams a, b, c;
			_cleanup_free_ char *s1 = text_of(q, true, seed, 3, 1, &a);
			_cleanup_free_ char *s2 = text_of(q, true, seed, 3, 1, &b);
			_cleanup_free_ char *s3 = text_of(q, true, seed + 1000, 3, 1, &c);
			if (!s1 || !s2 || !s3)
				return;
			CU_CHECK(strcmp(s1, s2) == 0, "Q%u seed %llu: not reproducible", q,
				 (unsigned long long)seed);
			differ[q] += strcmp(s1, s3) != 0;
			bool ok = true;
			switch (q) {
			case 1: ok = atoi(a.v[0]) >= 60 && atoi(a.v[0]) <= 120; break;
			case 3: ok = strncmp(a.v[1], "1995-03-", 8) == 0; break;
			case 4: ok = strcmp(a.v[0], "1993-01-01") >= 0 && strcmp(a.v[0], "1997-10-01") <= 0 &&
				     strcmp(a.v[0] + 7, "-01") == 0; break;
			case 6: ok = strcmp(a.v[1], "0.02") >= 0 && strcmp(a.v[1], "0.09") <= 0 &&
				     (atoi(a.v[2]) == 24 || atoi(a.v[2]) == 25); break;
			case 7: ok = strcmp(a.v[0], a.v[1]) != 0; break;
			case 8:
				ok = false;
				for (size_t i = 0; i < DUT_ARRAY_SIZE(nation_region); i++)
					ok |= !strcmp(a.v[0], nation_region[i].nation) &&
					      !strcmp(a.v[1], nation_region[i].region);
				break;
			case 10: ok = strcmp(a.v[0], "1993-02-01") >= 0 && strcmp(a.v[0], "1995-01-01") <= 0; break;
			case 12: ok = strcmp(a.v[0], a.v[1]) != 0; break;
			case 16: ok = distinct_ints(&a, 2, 8, 1, 50); break;
			case 18: ok = atoi(a.v[0]) >= 312 && atoi(a.v[0]) <= 315; break;
			case 19: ok = atoi(a.v[0]) <= 10 && atoi(a.v[1]) >= 10 && atoi(a.v[1]) <= 20 &&
				      atoi(a.v[2]) >= 20 && atoi(a.v[2]) <= 30; break;
			case 22: ok = distinct_ints(&a, 0, 7, 10, 34); break;
			}
			CU_CHECK(ok, "Q%u seed %llu: parameters out of the rules: %s %s %s", q,
				 (unsigned long long)seed, a.v[0], a.v[1], a.v[2]);
		}
	}
	/* Other seeds give other parameters (Q13 has only 16 combinations). */
	for (unsigned q = 1; q <= DSS_NQUERIES; q++)
		CU_CHECK(differ[q] >= 20, "Q%u: only %u of 40 seeds changed the parameters", q, differ[q]);
}

static const struct cu_test tests[] = {
	{ "default_texts", test_default_texts },
	{ "random_parameters", test_random_parameters },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dss-queries", .tests = tests };
