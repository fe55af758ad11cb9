/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Value domains of the DSS generator, checked on every row at SF 0.01:
 * the TPC-H specification's date rules (ship after order, commit and
 * receipt windows, return flag and line status by the current date), price
 * formulas, order status and total price from the lines, enumerations,
 * phone numbers by nation, the planted Q16 supplier comments and the
 * comment grammar.  The oracles (syllables, lists, formulas) are written
 * here again from the specification, not taken from the code under test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "pgload/dss/gen.h"
#include "tests/cu_main.h"
#include "tests/pgload/dss/gen_util.h"

static const char *const type1[] = { "STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO", NULL };
static const char *const type2[] = { "ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED", NULL };
static const char *const type3[] = { "TIN", "NICKEL", "BRASS", "STEEL", "COPPER", NULL };
static const char *const cont1[] = { "SM", "LG", "MED", "JUMBO", "WRAP", NULL };
static const char *const cont2[] = { "CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM", NULL };
static const char *const segments[] = { "AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
					"HOUSEHOLD", NULL };
static const char *const priorities[] = { "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
					  "5-LOW", NULL };
static const char *const instructs[] = { "DELIVER IN PERSON", "COLLECT COD", "NONE",
					 "TAKE BACK RETURN", NULL };
static const char *const modes[] = { "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB", NULL };

/* The grammar's vocabulary (our own word lists, see pgload/dss/text.c). */
static const char *const vocabulary[] = {
	"packages", "requests", "accounts", "deposits", "orders", "shipments", "pallets",
	"invoices", "ledgers", "crates", "couriers", "manifests", "parcels", "tariffs",
	"warrants", "freighters",
	"ship", "settle", "arrive", "wait", "move", "drift", "hold", "clear", "sort", "stack",
	"track", "load",
	"special", "pending", "unusual", "express", "quick", "careful", "regular", "final",
	"silent", "steady", "late", "early",
	"quickly", "carefully", "slowly", "quietly", "evenly", "boldly", "finally", "always",
	"never", "soon",
	"about", "above", "after", "against", "along", "among", "beside", "beyond", "despite",
	"near", "under", "without",
	"can", "will", "must", "should", "might", "may", "the", NULL,
};

#define SF 0.01
#define PARTS 2000
#define SUPPLIERS 100
#define CUSTOMERS 1500
#define ORDERS 15000

static long price_cents(long partkey)
{
	return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

static bool range(const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	return end != s && !*end && v >= lo - 1e-9 && v <= hi + 1e-9;
}

/* "Name#000000042" for key */
static bool keyname(const char *s, const char *prefix, long key)
{
	char want[64];

	snprintf(want, sizeof(want), "%s%09ld", prefix, key);
	return strcmp(s, want) == 0;
}

static bool phone_ok(const char *s, long nation)
{
	int cc, a, b, c, n = 0;

	return strlen(s) == 15 && sscanf(s, "%2d-%3d-%3d-%4d%n", &cc, &a, &b, &c, &n) == 4 &&
	       n == 15 && cc == nation + 10 && a >= 100 && b >= 100 && c >= 1000;
}

static bool vstring_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 10 || n > 40)
		return false;
	for (; *s; s++)
		if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.", *s))
			return false;
	return true;
}

static bool syllables(const char *s, const char *const *a, const char *const *b,
		      const char *const *c)
{
	char buf[64], *save = NULL, *w;

	snprintf(buf, sizeof(buf), "%s", s);
	w = strtok_r(buf, " ", &save);
	if (!w || !in_list(w, a))
		return false;
	w = strtok_r(NULL, " ", &save);
	if (!w || !in_list(w, b))
		return false;
	w = strtok_r(NULL, " ", &save);
	if (c)
		return w && in_list(w, c) && !strtok_r(NULL, " ", &save);
	return !w;
}

struct order_info {
	long date, total, lines_total;
	char status;
	unsigned lines, lines_f;
};

static void test_orders_and_lineitem_rules(void)
{
	struct rows o, l, ps;
	char f[MAXF][256];
	size_t pos = 0;
	unsigned n;
	long i = 0;
	const long start = days("1992-01-01"), current = days("1995-06-17");
	const long last_order = days("1998-12-31") - 151;
	_cleanup_free_ struct order_info *info = calloc(ORDERS, sizeof(*info));
	static long supp[PARTS + 1][4];
	unsigned seen_flag[256] = { 0 }, bad = 0;

	if (!info || gen(SF, 1, DSS_ORDERS, &o) || gen(SF, 1, DSS_LINEITEM, &l) ||
	    gen(SF, 1, DSS_PARTSUPP, &ps))
		return;
	for (long k = 0; (n = next_row(&ps.buf, &pos, f)); k++)
		supp[atol(f[0])][k % 4] = atol(f[1]);
	pos = 0;
	for (; (n = next_row(&o.buf, &pos, f)); i++) {
		long key = atol(f[0]), cust = atol(f[1]), d = days(f[4]);
		int clerk = -1;
		bool ok = n == 9 && key == i / 8 * 32 + i % 8 + 1 && cust >= 1 && cust <= CUSTOMERS &&
			  cust % 3 != 0 && strchr("FOP", f[2][0]) && d >= start && d <= last_order &&
			  in_list(f[5], priorities) && sscanf(f[6], "Clerk#%9d", &clerk) == 1 &&
			  clerk >= 1 && clerk <= 10 && strcmp(f[7], "0") == 0 &&
			  strlen(f[8]) >= 19 && strlen(f[8]) <= 78;
		CU_CHECK(ok, "order row %ld out of domain: %s|%s|%s|%s|%s|%s|%s", i, f[0], f[1], f[2],
			 f[4], f[5], f[6], f[7]);
		if (!ok && ++bad > 5)
			return;
		info[i] = (struct order_info){ .date = d, .total = cents(f[3]), .status = f[2][0] };
	}
	CU_CHECK(i == ORDERS, "%ld orders", i);
	pos = 0;
	long prev_unit = -1, rows = 0;
	unsigned prev_line = 0;
	while ((n = next_row(&l.buf, &pos, f))) {
		long key = atol(f[0]), part = atol(f[1]), sup = atol(f[2]), qty = atol(f[4]);
		long unit = (key - 1) / 32 * 8 + (key - 1) % 32;
		unsigned line = (unsigned)atol(f[3]);
		rows++;
		if (n != 16 || (key - 1) % 32 >= 8 || unit >= ORDERS || part < 1 || part > PARTS) {
			CU_CHECK(false, "lineitem row %ld: key %ld part %ld (%u fields)", rows, key, part, n);
			return;
		}
		struct order_info *oi = &info[unit];
		long ship = days(f[10]), commit = days(f[11]), receipt = days(f[12]);
		long disc = cents(f[6]), tax = cents(f[7]), ext = cents(f[5]);
		char rf = f[8][0], ls = f[9][0];
		bool ok = (unit == prev_unit ? line == prev_line + 1 : line == 1 && unit == prev_unit + 1) &&
			  (sup == supp[part][0] || sup == supp[part][1] || sup == supp[part][2] ||
			   sup == supp[part][3]) &&
			  qty >= 1 && qty <= 50 && ext == qty * price_cents(part) &&
			  range(f[6], 0, 0.10) && range(f[7], 0, 0.08) &&
			  ship > oi->date && ship <= oi->date + 121 &&
			  commit >= oi->date + 30 && commit <= oi->date + 90 &&
			  receipt > ship && receipt <= ship + 30 &&
			  (receipt <= current ? (rf == 'R' || rf == 'A') : rf == 'N') &&
			  ls == (ship > current ? 'O' : 'F') &&
			  in_list(f[13], instructs) && in_list(f[14], modes) &&
			  strlen(f[15]) >= 10 && strlen(f[15]) <= 43;
		CU_CHECK(ok, "lineitem %ld/%u out of domain: %s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s",
			 key, line, f[1], f[2], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11],
			 f[12], f[13], f[14], f[15]);
		if (!ok && ++bad > 5)
			return;
		seen_flag[(unsigned char)rf]++;
		oi->lines++;
		oi->lines_f += ls == 'F';
		oi->lines_total += lround(ext * (1 + tax / 100.0) * (1 - disc / 100.0));
		prev_unit = unit;
		prev_line = line;
	}
	CU_CHECK(seen_flag['R'] && seen_flag['A'] && seen_flag['N'], "return flags R %u A %u N %u",
		 seen_flag['R'], seen_flag['A'], seen_flag['N']);
	for (long u = 0; u < ORDERS && bad < 5; u++) {
		struct order_info *oi = &info[u];
		char want = oi->lines_f == oi->lines ? 'F' : oi->lines_f ? 'P' : 'O';
		bool ok = oi->lines >= 1 && oi->lines <= 7 && oi->status == want &&
			  labs(oi->total - oi->lines_total) <= (long)oi->lines;
		CU_CHECK(ok, "order %ld: %u lines, status %c (want %c), total %ld (lines %ld)", u,
			 oi->lines, oi->status, want, oi->total, oi->lines_total);
		bad += !ok;
	}
	dss_buf_free(&o.buf);
	dss_buf_free(&l.buf);
	dss_buf_free(&ps.buf);
}

static void check_nation_region(void)
{
	static const struct { long key; const char *name; long region; } nations[] = {
		{ 0, "ALGERIA", 0 }, { 2, "BRAZIL", 1 }, { 3, "CANADA", 1 }, { 6, "FRANCE", 3 },
		{ 7, "GERMANY", 3 }, { 8, "INDIA", 2 }, { 20, "SAUDI ARABIA", 4 },
		{ 24, "UNITED STATES", 1 },
	};
	static const char *const regions[] = { "AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST" };
	struct rows r;
	char f[MAXF][256];
	size_t pos = 0;
	long k = 0;

	if (gen(SF, 1, DSS_REGION, &r))
		return;
	for (; next_row(&r.buf, &pos, f) == 3; k++)
		CU_CHECK(atol(f[0]) == k && strcmp(f[1], regions[k]) == 0, "region %ld: %s", k, f[1]);
	CU_CHECK(k == 5, "%ld regions", k);
	dss_buf_free(&r.buf);
	if (gen(SF, 1, DSS_NATION, &r))
		return;
	pos = 0;
	for (k = 0; next_row(&r.buf, &pos, f) == 4; k++)
		for (size_t i = 0; i < DUT_ARRAY_SIZE(nations); i++)
			if (nations[i].key == k)
				CU_CHECK(strcmp(f[1], nations[i].name) == 0 && atol(f[2]) == nations[i].region,
					 "nation %ld: %s in region %s", k, f[1], f[2]);
	CU_CHECK(k == 25, "%ld nations", k);
	dss_buf_free(&r.buf);
}

static void check_supplier_customer(void)
{
	struct rows r;
	char f[MAXF][256];
	size_t pos = 0;
	unsigned per_nation[25] = { 0 }, n;
	long k = 1;

	if (gen(SF, 1, DSS_SUPPLIER, &r))
		return;
	for (; (n = next_row(&r.buf, &pos, f)); k++) {
		long nation = atol(f[3]);
		CU_CHECK(n == 7 && atol(f[0]) == k && keyname(f[1], "Supplier#", k) && vstring_ok(f[2]) &&
			 nation >= 0 && nation <= 24 && phone_ok(f[4], nation) &&
			 range(f[5], -999.99, 9999.99) && strlen(f[6]) >= 25 && strlen(f[6]) <= 100,
			 "supplier %ld: %s|%s|%s|%s|%s", k, f[1], f[2], f[3], f[4], f[5]);
		per_nation[nation < 25 && nation >= 0 ? nation : 0]++;
	}
	CU_CHECK(k - 1 == SUPPLIERS, "%ld suppliers", k - 1);
	for (unsigned i = 0; i < 25; i++)
		CU_CHECK(per_nation[i] == SUPPLIERS / 25, "nation %u has %u suppliers", i, per_nation[i]);
	dss_buf_free(&r.buf);

	if (gen(SF, 1, DSS_CUSTOMER, &r))
		return;
	pos = 0;
	for (k = 1; (n = next_row(&r.buf, &pos, f)); k++) {
		long nation = atol(f[3]);
		CU_CHECK(n == 8 && atol(f[0]) == k && keyname(f[1], "Customer#", k) && vstring_ok(f[2]) &&
			 nation >= 0 && nation <= 24 && phone_ok(f[4], nation) &&
			 range(f[5], -999.99, 9999.99) && in_list(f[6], segments) &&
			 strlen(f[7]) >= 29 && strlen(f[7]) <= 116,
			 "customer %ld: %s|%s|%s|%s|%s|%s", k, f[1], f[2], f[3], f[4], f[5], f[6]);
	}
	CU_CHECK(k - 1 == CUSTOMERS, "%ld customers", k - 1);
	dss_buf_free(&r.buf);
}

static void check_part_partsupp(void)
{
	struct rows r;
	char f[MAXF][256], colors[128][32];
	size_t pos = 0, ncolors = 0;
	unsigned n;
	long k = 1;

	if (gen(SF, 1, DSS_PART, &r))
		return;
	for (; (n = next_row(&r.buf, &pos, f)); k++) {
		char words[5][32];
		int m = 0, b1 = 0, b2 = 0, used = 0;
		bool name_ok = sscanf(f[1], "%31s %31s %31s %31s %31s%n", words[0], words[1], words[2],
				      words[3], words[4], &used) == 5 && (size_t)used == strlen(f[1]);
		for (int i = 0; name_ok && i < 5; i++) {
			for (int j = 0; j < i; j++)
				name_ok &= strcmp(words[i], words[j]) != 0;
			size_t c = 0;
			while (c < ncolors && strcmp(colors[c], words[i]))
				c++;
			if (c == ncolors && ncolors < 128)
				snprintf(colors[ncolors++], 32, "%.31s", words[i]);
		}
		CU_CHECK(n == 9 && atol(f[0]) == k && name_ok &&
			 sscanf(f[2], "Manufacturer#%d", &m) == 1 && m >= 1 && m <= 5 &&
			 sscanf(f[3], "Brand#%1d%1d", &b1, &b2) == 2 && b1 == m && b2 >= 1 && b2 <= 5 &&
			 syllables(f[4], type1, type2, type3) && range(f[5], 1, 50) &&
			 syllables(f[6], cont1, cont2, NULL) && cents(f[7]) == price_cents(k) &&
			 strlen(f[8]) >= 5 && strlen(f[8]) <= 22,
			 "part %ld: %s|%s|%s|%s|%s|%s|%s", k, f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
	}
	/* 10,000 draws from the specification's 92 colours see all of them. */
	CU_CHECK(ncolors == 92, "%zu distinct colours in part names, the specification has 92",
		 ncolors);
	dss_buf_free(&r.buf);

	if (gen(SF, 1, DSS_PARTSUPP, &r))
		return;
	pos = 0;
	long s[4];
	for (k = 0; (n = next_row(&r.buf, &pos, f)); k++) {
		s[k % 4] = atol(f[1]);
		CU_CHECK(n == 5 && atol(f[0]) == k / 4 + 1 && s[k % 4] >= 1 && s[k % 4] <= SUPPLIERS &&
			 range(f[2], 1, 9999) && range(f[3], 1.00, 1000.00) &&
			 strlen(f[4]) >= 49 && strlen(f[4]) <= 198,
			 "partsupp row %ld: %s|%s|%s|%s", k, f[0], f[1], f[2], f[3]);
		if (k % 4 == 3)
			CU_CHECK(s[0] != s[1] && s[0] != s[2] && s[0] != s[3] && s[1] != s[2] &&
				 s[1] != s[3] && s[2] != s[3], "part %ld: suppliers %ld %ld %ld %ld",
				 k / 4 + 1, s[0], s[1], s[2], s[3]);
	}
	CU_CHECK(k == 4 * PARTS, "%ld partsupp rows", k);
	dss_buf_free(&r.buf);
}

static void test_value_domains(void)
{
	check_nation_region();
	check_supplier_customer();
	check_part_partsupp();
}

static unsigned count_matches(const struct rows *r, unsigned field, const char *a, const char *b)
{
	char f[MAXF][256];
	size_t pos = 0;
	unsigned hits = 0;

	while (next_row(&r->buf, &pos, f)) {
		const char *p = strstr(f[field], a);
		hits += p && strstr(p + strlen(a), b);
	}
	return hits;
}

static void test_special_supplier_comments(void)
{
	static const struct { double sf; unsigned want; } rows[] = { { 0.01, 1 }, { 1, 5 }, { 2, 10 } };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct rows r;
		if (gen(rows[i].sf, 1, DSS_SUPPLIER, &r))
			continue;
		unsigned c = count_matches(&r, 6, "Customer", "Complaints");
		unsigned rec = count_matches(&r, 6, "Customer", "Recommends");
		CU_CHECK(c == rows[i].want && rec == rows[i].want,
			 "SF %g: %u Complaints, %u Recommends, want %u each", rows[i].sf, c, rec,
			 rows[i].want);
		dss_buf_free(&r.buf);
	}
}

/* Every comment: allowed characters, single spaces, grammar words but the cut last one. */
static bool comment_ok(const char *s, bool planted)
{
	char buf[256], *save = NULL;
	const char *last = NULL;

	if (!*s || s[0] == ' ' || s[strlen(s) - 1] == ' ' || strstr(s, "  "))
		return false;
	if (!planted && (strstr(s, "Customer") || strstr(s, "Complaints") || strstr(s, "Recommends")))
		return false;
	snprintf(buf, sizeof(buf), "%.255s", s);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (last) {
			char word[64];
			size_t n = strcspn(last, ",.;:?!-");
			snprintf(word, sizeof(word), "%.*s", (int)n, last);
			if (strspn(last + n, ",.;:?!-") != strlen(last + n))
				return false;
			if (!in_list(word, vocabulary) &&
			    !(planted && (!strcmp(word, "Customer") || !strcmp(word, "Complaints") ||
					  !strcmp(word, "Recommends"))))
				return false;
		}
		last = w;
	}
	return true;
}

static void test_comment_grammar(void)
{
	static const unsigned comment_field[DSS_NTABLES] = {
		[DSS_REGION] = 2, [DSS_NATION] = 3, [DSS_SUPPLIER] = 6, [DSS_PART] = 8,
		[DSS_PARTSUPP] = 4, [DSS_CUSTOMER] = 7, [DSS_ORDERS] = 8, [DSS_LINEITEM] = 15,
	};
	for (unsigned t = 0; t < DSS_NTABLES; t++) {
		struct rows r;
		char f[MAXF][256];
		size_t pos = 0;
		unsigned bad = 0;

		if (gen(SF, 1, t, &r))
			continue;
		for (size_t i = 0; i < r.buf.len; i++)
			if (strchr("\\\"\t\r", r.buf.p[i])) {
				CU_CHECK(false, "%s has a 0x%02x byte", dss_table_name(t), r.buf.p[i]);
				break;
			}
		while (next_row(&r.buf, &pos, f) && bad < 3) {
			const char *c = f[comment_field[t]];
			bool ok = comment_ok(c, t == DSS_SUPPLIER && strstr(c, "Customer"));
			CU_CHECK(ok, "%s comment \"%s\"", dss_table_name(t), c);
			bad += !ok;
		}
		if (t == DSS_ORDERS) {
			/* Q13's default pattern '%special%requests%' matches some, not all. */
			unsigned hits = count_matches(&r, 8, "special", "requests");
			CU_CHECK(hits > 0 && hits < r.n / 2, "%u of %llu order comments match Q13",
				 hits, (unsigned long long)r.n);
		}
		dss_buf_free(&r.buf);
	}
}

static const struct cu_test tests[] = {
	{ "orders_and_lineitem_rules", test_orders_and_lineitem_rules },
	{ "value_domains", test_value_domains },
	{ "special_supplier_comments", test_special_supplier_comments },
	{ "comment_grammar", test_comment_grammar },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dss-domains", .tests = tests };
