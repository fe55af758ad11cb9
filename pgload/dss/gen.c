/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TPC-H-derived data generator: cardinalities and rows (see gen.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/dss/gen.h"
#include "pgload/dss/rng.h"
#include "pgload/dss/spec.h"

#define POOL_BYTES (8u << 20)
#define ROW_MAX 1024 /* longest row is a lineitem-free table's: < 600 bytes */

static const char *const table_names[DSS_NTABLES] = {
	"region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem",
};

const char *dss_table_name(enum dss_table t)
{
	return t < DSS_NTABLES ? table_names[t] : "?";
}

int dss_table_parse(const char *name, enum dss_table *ret)
{
	for (unsigned t = 0; t < DSS_NTABLES; t++)
		if (strcmp(name, table_names[t]) == 0) {
			*ret = (enum dss_table)t;
			return 0;
		}
	return -ENOENT;
}

/* Column stream ids: one per column that draws random values. */
enum {
	C_NAME = 1, C_ADDRESS, C_NATION, C_PHONE, C_ACCTBAL, C_SEGMENT, C_COMMENT,
	C_MFGR, C_BRAND, C_TYPE, C_SIZE, C_CONTAINER, C_AVAILQTY, C_SUPPLYCOST,
	C_CUSTKEY, C_ORDERDATE, C_PRIORITY, C_CLERK, C_LINES, C_PARTKEY, C_SUPPNO,
	C_QUANTITY, C_DISCOUNT, C_TAX, C_SHIPDATE, C_COMMITDATE, C_RECEIPTDATE,
	C_RETURNFLAG, C_INSTRUCT, C_MODE, C_SPECIAL,
};

static uint64_t scaled(double base, double sf)
{
	long long v = llround(base * sf);
	return v < 1 ? 1 : (uint64_t)v;
}

int dss_gen_init(struct dss_gen *g, uint64_t seed, double sf)
{
	/* Four distinct suppliers per part need 4 suppliers (SF 0.0004); keys
	 * are integer columns, so part keys (200,000 SF) must fit in 31 bits. */
	if (!(sf >= 0.0004 && sf <= 10000))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->seed = seed;
	g->sf = sf;
	g->suppliers = scaled(10000, sf);
	g->parts = scaled(200000, sf);
	g->customers = scaled(150000, sf);
	g->orders = scaled(1500000, sf);
	g->clerks = scaled(1000, sf);
	g->rf_orders = scaled(1500, sf);
	g->special_suppliers = (unsigned)scaled(5, sf);
	if (g->special_suppliers > g->suppliers)
		g->special_suppliers = (unsigned)g->suppliers;
	return dss_text_pool_build(seed, POOL_BYTES, &g->pool);
}

void dss_gen_free(struct dss_gen *g)
{
	dss_text_pool_free(&g->pool);
}

uint64_t dss_gen_units(const struct dss_gen *g, enum dss_table t)
{
	switch (t) {
	case DSS_REGION: return 5;
	case DSS_NATION: return 25;
	case DSS_SUPPLIER: return g->suppliers;
	case DSS_PART:
	case DSS_PARTSUPP: return g->parts;
	case DSS_CUSTOMER: return g->customers;
	case DSS_ORDERS:
	case DSS_LINEITEM: return g->orders;
	default: return 0;
	}
}

int dss_buf_reserve(struct dss_buf *b, size_t n)
{
	if (b->cap - b->len >= n)
		return 0;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap - b->len < n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void dss_buf_free(struct dss_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- field writers: each writes at p and returns the new end ---- */

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Zero-padded to width digits. */
static char *put_u64w(char *p, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + width;
}

static char *put_cents(char *p, int64_t cents)
{
	if (cents < 0) {
		*p++ = '-';
		cents = -cents;
	}
	p = put_u64(p, (uint64_t)cents / 100);
	*p++ = '.';
	return put_u64w(p, (uint64_t)cents % 100, 2);
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

#define SEP(p) (*(p)++ = '|')

static int64_t draw(const struct dss_gen *g, unsigned t, unsigned col, uint64_t row,
		    int64_t lo, int64_t hi)
{
	struct dss_rng r = dss_rng_at(g->seed, t, col, row);
	return dss_rng_range(&r, lo, hi);
}

static const char *pick(const struct dss_gen *g, unsigned t, unsigned col, uint64_t row,
			const struct dss_list *l)
{
	return l->v[draw(g, t, col, row, 0, (int64_t)l->n - 1)];
}

static char *put_comment(const struct dss_gen *g, unsigned t, uint64_t row,
			 unsigned min_len, unsigned max_len, char *p)
{
	struct dss_rng r = dss_rng_at(g->seed, t, C_COMMENT, row);
	return dss_text_comment(&g->pool, &r, min_len, max_len, p);
}

/* Random characters of the specification's "v-string" (no delimiter, quote or escape). */
static char *put_vstring(const struct dss_gen *g, unsigned t, uint64_t row, char *p)
{
	static const char alphabet[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
	struct dss_rng r = dss_rng_at(g->seed, t, C_ADDRESS, row);
	int64_t n = dss_rng_range(&r, 10, 40);

	for (int64_t i = 0; i < n; i++)
		*p++ = alphabet[dss_rng_next(&r) >> 58];
	return p;
}

/* "CC-LLL-LLL-LLLL" with country code nationkey + 10. */
static char *put_phone(const struct dss_gen *g, unsigned t, uint64_t row, int64_t nation,
		       char *p)
{
	struct dss_rng r = dss_rng_at(g->seed, t, C_PHONE, row);

	p = put_u64w(p, (uint64_t)nation + 10, 2);
	*p++ = '-';
	p = put_u64w(p, (uint64_t)dss_rng_range(&r, 100, 999), 3);
	*p++ = '-';
	p = put_u64w(p, (uint64_t)dss_rng_range(&r, 100, 999), 3);
	*p++ = '-';
	return put_u64w(p, (uint64_t)dss_rng_range(&r, 1000, 9999), 4);
}

/* "Name#000000042" */
static char *put_keyname(char *p, const char *prefix, uint64_t key)
{
	p = put_str(p, prefix);
	return put_u64w(p, key, 9);
}

static char *row_region(const struct dss_gen *g, uint64_t u, char *p)
{
	p = put_u64(p, u);
	SEP(p);
	p = put_str(p, dss_regions[u]);
	SEP(p);
	return put_comment(g, DSS_REGION, u, 31, 115, p);
}

static char *row_nation(const struct dss_gen *g, uint64_t u, char *p)
{
	p = put_u64(p, u);
	SEP(p);
	p = put_str(p, dss_nations[u].name);
	SEP(p);
	p = put_u64(p, dss_nations[u].region);
	SEP(p);
	return put_comment(g, DSS_NATION, u, 31, 114, p);
}

/*
 * The planted Q16 rows: the suppliers are split into special_suppliers
 * blocks; in each block one row gets "Customer ... Complaints" and another
 * "Customer ... Recommends".  0: ordinary, 1: complaints, 2: recommends.
 */
static int supplier_special(const struct dss_gen *g, uint64_t u)
{
	uint64_t block = g->suppliers / g->special_suppliers;
	uint64_t k = u / block;

	if (k >= g->special_suppliers)
		return 0;
	struct dss_rng r = dss_rng_at(g->seed, DSS_SUPPLIER, C_SPECIAL, k);
	uint64_t a = (uint64_t)dss_rng_range(&r, 0, (int64_t)block - 1);
	uint64_t off = u - k * block;
	if (off == a)
		return 1;
	if (block > 1 && off == (a + 1 + (uint64_t)dss_rng_range(&r, 0, (int64_t)block - 2)) % block)
		return 2;
	return 0;
}

/*
 * A Q16 comment of 25..100 characters: "Customer " and the verdict
 * inserted at word boundaries of an ordinary comment 20 characters shorter
 * (verdict + ' ' inside, or ' ' + verdict at the very end), so no double
 * or trailing space appears.
 */
static char *put_planted_comment(const struct dss_gen *g, uint64_t u, const char *verdict,
				 char *p)
{
	struct dss_rng r = dss_rng_at(g->seed, DSS_SUPPLIER, C_COMMENT, u);
	char base[128];
	size_t m = (size_t)(dss_text_comment(&g->pool, &r, 5, 80, base) - base);
	size_t starts[128], n = 0, a, b;

	for (size_t i = 0; i < m; i++)
		if (i == 0 || base[i - 1] == ' ')
			starts[n++] = i;
	r = dss_rng_at(g->seed, DSS_SUPPLIER, C_SPECIAL, g->suppliers + u);
	size_t ia = (size_t)dss_rng_range(&r, 0, (int64_t)n - 1);
	a = starts[ia];
	size_t ib = (size_t)dss_rng_range(&r, (int64_t)ia, (int64_t)n); /* n: the end */
	b = ib < n ? starts[ib] : m;
	memcpy(p, base, a);
	p = put_str(p + a, "Customer ");
	memcpy(p, base + a, b - a);
	p += b - a;
	if (b < m) {
		p = put_str(p, verdict);
		*p++ = ' ';
		memcpy(p, base + b, m - b);
		return p + (m - b);
	}
	*p++ = ' ';
	return put_str(p, verdict);
}

/*
 * s_nationkey: uniform over the 25 nations as the specification asks, but
 * balanced: each block of 25 consecutive suppliers holds every nation once,
 * in a random order.  At small scale factors (100 suppliers at SF 0.01)
 * every nation then has its share of suppliers, so that the per-nation
 * queries (Q2, Q5, Q7, Q8, Q9, Q11, Q20, Q21) find data.
 */
static int64_t supplier_nation(const struct dss_gen *g, uint64_t u)
{
	struct dss_rng r = dss_rng_at(g->seed, DSS_SUPPLIER, C_NATION, u / 25);
	unsigned perm[25];

	for (unsigned i = 0; i < 25; i++)
		perm[i] = i;
	for (unsigned i = 24; i > 0; i--) {
		unsigned j = (unsigned)dss_rng_range(&r, 0, i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	return perm[u % 25];
}

static char *row_supplier(const struct dss_gen *g, uint64_t u, char *p)
{
	uint64_t key = u + 1;
	int64_t nation = supplier_nation(g, u);

	p = put_u64(p, key);
	SEP(p);
	p = put_keyname(p, "Supplier#", key);
	SEP(p);
	p = put_vstring(g, DSS_SUPPLIER, u, p);
	SEP(p);
	p = put_u64(p, (uint64_t)nation);
	SEP(p);
	p = put_phone(g, DSS_SUPPLIER, u, nation, p);
	SEP(p);
	p = put_cents(p, draw(g, DSS_SUPPLIER, C_ACCTBAL, u, -99999, 999999));
	SEP(p);
	int special = supplier_special(g, u);
	if (special)
		return put_planted_comment(g, u, special == 1 ? "Complaints" : "Recommends", p);
	return put_comment(g, DSS_SUPPLIER, u, 25, 100, p);
}

int64_t dss_part_price_cents(uint64_t partkey)
{
	return (int64_t)(90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000));
}

static char *row_part(const struct dss_gen *g, uint64_t u, char *p)
{
	uint64_t key = u + 1;
	struct dss_rng r = dss_rng_at(g->seed, DSS_PART, C_NAME, u);
	size_t colors[5];

	p = put_u64(p, key);
	SEP(p);
	for (unsigned i = 0; i < 5; i++) {
		bool again;
		do {
			colors[i] = (size_t)dss_rng_range(&r, 0, (int64_t)dss_colors.n - 1);
			again = false;
			for (unsigned j = 0; j < i; j++)
				again |= colors[j] == colors[i];
		} while (again);
		if (i)
			*p++ = ' ';
		p = put_str(p, dss_colors.v[colors[i]]);
	}
	SEP(p);
	int64_t m = draw(g, DSS_PART, C_MFGR, u, 1, 5);
	p = put_str(p, "Manufacturer#");
	p = put_u64(p, (uint64_t)m);
	SEP(p);
	p = put_str(p, "Brand#");
	p = put_u64(p, (uint64_t)(m * 10 + draw(g, DSS_PART, C_BRAND, u, 1, 5)));
	SEP(p);
	r = dss_rng_at(g->seed, DSS_PART, C_TYPE, u);
	p = put_str(p, dss_type_s1.v[dss_rng_range(&r, 0, (int64_t)dss_type_s1.n - 1)]);
	*p++ = ' ';
	p = put_str(p, dss_type_s2.v[dss_rng_range(&r, 0, (int64_t)dss_type_s2.n - 1)]);
	*p++ = ' ';
	p = put_str(p, dss_type_s3.v[dss_rng_range(&r, 0, (int64_t)dss_type_s3.n - 1)]);
	SEP(p);
	p = put_u64(p, (uint64_t)draw(g, DSS_PART, C_SIZE, u, 1, 50));
	SEP(p);
	r = dss_rng_at(g->seed, DSS_PART, C_CONTAINER, u);
	p = put_str(p, dss_cont_s1.v[dss_rng_range(&r, 0, (int64_t)dss_cont_s1.n - 1)]);
	*p++ = ' ';
	p = put_str(p, dss_cont_s2.v[dss_rng_range(&r, 0, (int64_t)dss_cont_s2.n - 1)]);
	SEP(p);
	p = put_cents(p, dss_part_price_cents(key));
	SEP(p);
	return put_comment(g, DSS_PART, u, 5, 22, p);
}

/*
 * The specification's formula, (partkey + i * (S/4 + (partkey-1)/S)) mod S
 * + 1, gives four distinct suppliers for the usual scale factors; for some
 * supplier counts (S = 120, for one) two of them coincide, and then the
 * later one moves on to the next supplier not yet taken, so that
 * (ps_partkey, ps_suppkey) stays a key.
 */
uint64_t dss_partsupp_suppkey(const struct dss_gen *g, uint64_t partkey, unsigned i)
{
	uint64_t s = g->suppliers, k[4];

	for (unsigned j = 0; j <= i && j < 4; j++) {
		k[j] = (partkey + j * (s / 4 + (partkey - 1) / s)) % s;
		for (unsigned m = 0; m < j; m++)
			if (k[m] == k[j]) {
				k[j] = (k[j] + 1) % s;
				m = (unsigned)-1; /* check against all again */
			}
	}
	return k[i < 4 ? i : 3] + 1;
}

/* Four rows per part unit. */
static char *rows_partsupp(const struct dss_gen *g, uint64_t u, char *p)
{
	uint64_t partkey = u + 1;

	for (unsigned i = 0; i < 4; i++) {
		uint64_t row = u * 4 + i;
		p = put_u64(p, partkey);
		SEP(p);
		p = put_u64(p, dss_partsupp_suppkey(g, partkey, i));
		SEP(p);
		p = put_u64(p, (uint64_t)draw(g, DSS_PARTSUPP, C_AVAILQTY, row, 1, 9999));
		SEP(p);
		p = put_cents(p, draw(g, DSS_PARTSUPP, C_SUPPLYCOST, row, 100, 100000));
		SEP(p);
		p = put_comment(g, DSS_PARTSUPP, row, 49, 198, p);
		*p++ = '\n';
	}
	return p;
}

static char *row_customer(const struct dss_gen *g, uint64_t u, char *p)
{
	uint64_t key = u + 1;
	int64_t nation = draw(g, DSS_CUSTOMER, C_NATION, u, 0, 24);

	p = put_u64(p, key);
	SEP(p);
	p = put_keyname(p, "Customer#", key);
	SEP(p);
	p = put_vstring(g, DSS_CUSTOMER, u, p);
	SEP(p);
	p = put_u64(p, (uint64_t)nation);
	SEP(p);
	p = put_phone(g, DSS_CUSTOMER, u, nation, p);
	SEP(p);
	p = put_cents(p, draw(g, DSS_CUSTOMER, C_ACCTBAL, u, -99999, 999999));
	SEP(p);
	p = put_str(p, pick(g, DSS_CUSTOMER, C_SEGMENT, u, &dss_segments));
	SEP(p);
	return put_comment(g, DSS_CUSTOMER, u, 29, 116, p);
}


/* ---- orders and lineitem: generated together (o_totalprice, o_orderstatus) ---- */

struct line {
	uint64_t partkey, suppkey;
	int64_t qty, ext_cents, discount, tax; /* discount and tax in hundredths */
	int32_t ship, commit, receipt;
	char returnflag, linestatus;
};

struct order {
	uint64_t key, custkey;
	int32_t date;
	unsigned nlines;
	int64_t total_cents;
	char status;
	struct line l[7];
};

uint64_t dss_order_key(const struct dss_gen *g, uint64_t u)
{
	if (u < g->orders)
		return u / 8 * 32 + u % 8 + 1;
	u -= g->orders;
	return u / 8 * 32 + 8 + u % 8 + 1;
}

unsigned dss_order_lines(const struct dss_gen *g, uint64_t u)
{
	return (unsigned)draw(g, DSS_ORDERS, C_LINES, u, 1, 7);
}

static void line_build(const struct dss_gen *g, uint64_t row, int32_t odate, struct line *l)
{
	l->partkey = (uint64_t)draw(g, DSS_LINEITEM, C_PARTKEY, row, 1, (int64_t)g->parts);
	l->suppkey = dss_partsupp_suppkey(g, l->partkey,
					  (unsigned)draw(g, DSS_LINEITEM, C_SUPPNO, row, 0, 3));
	l->qty = draw(g, DSS_LINEITEM, C_QUANTITY, row, 1, 50);
	l->ext_cents = l->qty * dss_part_price_cents(l->partkey);
	l->discount = draw(g, DSS_LINEITEM, C_DISCOUNT, row, 0, 10);
	l->tax = draw(g, DSS_LINEITEM, C_TAX, row, 0, 8);
	l->ship = odate + (int32_t)draw(g, DSS_LINEITEM, C_SHIPDATE, row, 1, 121);
	l->commit = odate + (int32_t)draw(g, DSS_LINEITEM, C_COMMITDATE, row, 30, 90);
	l->receipt = l->ship + (int32_t)draw(g, DSS_LINEITEM, C_RECEIPTDATE, row, 1, 30);
	if (l->receipt <= DSS_CURRENTDATE)
		l->returnflag = draw(g, DSS_LINEITEM, C_RETURNFLAG, row, 0, 1) ? 'R' : 'A';
	else
		l->returnflag = 'N';
	l->linestatus = l->ship > DSS_CURRENTDATE ? 'O' : 'F';
}

static void order_build(const struct dss_gen *g, uint64_t u, struct order *o)
{
	/* Every third customer (custkey divisible by 3) places no orders:
	 * draw the m-th key that is not a multiple of 3. */
	uint64_t valid = g->customers - g->customers / 3;
	uint64_t m = (uint64_t)draw(g, DSS_ORDERS, C_CUSTKEY, u, 0, (int64_t)valid - 1);
	unsigned nf = 0;

	o->key = dss_order_key(g, u);
	o->custkey = m + m / 2 + 1;
	o->date = (int32_t)draw(g, DSS_ORDERS, C_ORDERDATE, u, DSS_STARTDATE, DSS_ENDDATE - 151);
	o->nlines = dss_order_lines(g, u);
	o->total_cents = 0;
	for (unsigned i = 0; i < o->nlines; i++) {
		struct line *l = &o->l[i];
		line_build(g, u * 8 + i, o->date, l);
		/* extendedprice * (1 + tax) * (1 - discount), rounded to the cent */
		o->total_cents += (l->ext_cents * (100 + l->tax) * (100 - l->discount) + 5000) / 10000;
		nf += l->linestatus == 'F';
	}
	o->status = nf == o->nlines ? 'F' : nf == 0 ? 'O' : 'P';
}

static char *row_order(const struct dss_gen *g, uint64_t u, char *p)
{
	struct order o;

	order_build(g, u, &o);
	p = put_u64(p, o.key);
	SEP(p);
	p = put_u64(p, o.custkey);
	SEP(p);
	*p++ = o.status;
	SEP(p);
	p = put_cents(p, o.total_cents);
	SEP(p);
	p = dss_put_date(p, o.date);
	SEP(p);
	p = put_str(p, pick(g, DSS_ORDERS, C_PRIORITY, u, &dss_priorities));
	SEP(p);
	p = put_keyname(p, "Clerk#", (uint64_t)draw(g, DSS_ORDERS, C_CLERK, u, 1, (int64_t)g->clerks));
	SEP(p);
	*p++ = '0';
	SEP(p);
	return put_comment(g, DSS_ORDERS, u, 19, 78, p);
}

static char *rows_lineitem(const struct dss_gen *g, uint64_t u, char *p, unsigned *ret_n)
{
	struct order o;

	order_build(g, u, &o);
	for (unsigned i = 0; i < o.nlines; i++) {
		const struct line *l = &o.l[i];
		uint64_t row = u * 8 + i;
		p = put_u64(p, o.key);
		SEP(p);
		p = put_u64(p, l->partkey);
		SEP(p);
		p = put_u64(p, l->suppkey);
		SEP(p);
		p = put_u64(p, i + 1);
		SEP(p);
		p = put_u64(p, (uint64_t)l->qty);
		SEP(p);
		p = put_cents(p, l->ext_cents);
		SEP(p);
		p = put_cents(p, l->discount);
		SEP(p);
		p = put_cents(p, l->tax);
		SEP(p);
		*p++ = l->returnflag;
		SEP(p);
		*p++ = l->linestatus;
		SEP(p);
		p = dss_put_date(p, l->ship);
		SEP(p);
		p = dss_put_date(p, l->commit);
		SEP(p);
		p = dss_put_date(p, l->receipt);
		SEP(p);
		p = put_str(p, pick(g, DSS_LINEITEM, C_INSTRUCT, row, &dss_instructions));
		SEP(p);
		p = put_str(p, pick(g, DSS_LINEITEM, C_MODE, row, &dss_modes));
		SEP(p);
		p = put_comment(g, DSS_LINEITEM, row, 10, 43, p);
		*p++ = '\n';
	}
	*ret_n = o.nlines;
	return p;
}

int dss_gen_chunk(const struct dss_gen *g, enum dss_table t, uint64_t lo, uint64_t hi,
		  struct dss_buf *out, uint64_t *ret_rows)
{
	uint64_t limit = dss_gen_units(g, t), rows = 0;
	bool orders = t == DSS_ORDERS || t == DSS_LINEITEM;
	int ret;

	if (orders)
		limit += g->rf_orders;
	if (lo > hi || hi > limit || t >= DSS_NTABLES)
		return -ERANGE;
	for (uint64_t u = lo; u < hi; u++) {
		/* Seven lineitem rows or four partsupp rows fit in 8 x ROW_MAX. */
		ret = dss_buf_reserve(out, 8 * ROW_MAX);
		if (ret < 0)
			return ret;
		char *p = out->p + out->len, *start = p;
		unsigned n = 1;
		switch (t) {
		case DSS_REGION: p = row_region(g, u, p); break;
		case DSS_NATION: p = row_nation(g, u, p); break;
		case DSS_SUPPLIER: p = row_supplier(g, u, p); break;
		case DSS_PART: p = row_part(g, u, p); break;
		case DSS_PARTSUPP: p = rows_partsupp(g, u, p); n = 4; break;
		case DSS_CUSTOMER: p = row_customer(g, u, p); break;
		case DSS_ORDERS: p = row_order(g, u, p); break;
		case DSS_LINEITEM: p = rows_lineitem(g, u, p, &n); break;
		default: return -ERANGE;
		}
		if (t != DSS_PARTSUPP && t != DSS_LINEITEM)
			*p++ = '\n';
		out->len += (size_t)(p - start);
		rows += n;
	}
	*ret_rows = rows;
	return 0;
}
