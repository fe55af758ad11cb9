/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TPC-H-derived data generator (pure: no I/O).  Written from the TPC-H
 * specification's schema, cardinalities and value domains; no dbgen code.
 *
 * Output: one line per row, columns separated by '|', no trailing
 * delimiter, '\n' at the end.  No value contains '|', '\\', '"', a tab or
 * a newline, so the lines are valid for COPY ... (FORMAT text, DELIMITER '|')
 * and for (FORMAT csv, DELIMITER '|') alike.
 *
 * Cardinalities for scale factor SF (fractional ones included; each rounded
 * to the nearest integer, at least 1): supplier 10,000 SF, part 200,000 SF,
 * partsupp 4 per part, customer 150,000 SF, orders 1,500,000 SF, lineitem 1
 * to 7 per order (uniform, so about 6,000,000 SF), nation 25, region 5.
 *
 * Order keys are sparse, as in the specification: of every 32 consecutive
 * keys the first 8 are used, so the i-th order (i from 0) has key
 * (i / 8) * 32 + i % 8 + 1.  The refresh function RF1 inserts new orders
 * into the gaps: refresh order j (from 0) has key (j / 8) * 32 + 8 + j % 8 + 1,
 * so the keys never collide with the loaded ones and RF1 may run once per
 * load; RF2 deletes exactly those.
 *
 * Chunks: a table is generated in units (one row; a part for partsupp,
 * four rows; an order for lineitem, one to seven rows).  Units [lo, hi)
 * can be generated independently in any order, and the concatenation of
 * the chunks of [0, n) in unit order is the same bytes however n is split.
 */
#ifndef DSS_GEN_H
#define DSS_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "pgload/dss/text.h"

enum dss_table {
	DSS_REGION, DSS_NATION, DSS_SUPPLIER, DSS_PART, DSS_PARTSUPP,
	DSS_CUSTOMER, DSS_ORDERS, DSS_LINEITEM, DSS_NTABLES
};

/* "region", "nation", ..., "lineitem". */
const char *dss_table_name(enum dss_table t);
/* The table whose name is name, or -ENOENT. */
int dss_table_parse(const char *name, enum dss_table *ret);

struct dss_gen {
	uint64_t seed;
	double sf;
	uint64_t suppliers, parts, customers, orders, clerks;
	uint64_t rf_orders;        /* orders RF1 inserts (0.1% of orders, at least 1) */
	unsigned special_suppliers; /* "Customer ... Complaints" rows (as many "Recommends") */
	struct dss_text_pool pool;
};

/* Scale factor sf from 0.0004 (4 suppliers) to 10000; -EINVAL, -ENOMEM. */
int dss_gen_init(struct dss_gen *g, uint64_t seed, double sf);
void dss_gen_free(struct dss_gen *g);

/* Units of a table (see above). */
uint64_t dss_gen_units(const struct dss_gen *g, enum dss_table t);

/* A growable output buffer. */
struct dss_buf {
	char *p;
	size_t len, cap;
};
/* Make room for n more bytes; -ENOMEM. */
int dss_buf_reserve(struct dss_buf *b, size_t n);
void dss_buf_free(struct dss_buf *b);

/*
 * Append the rows of units [lo, hi) of table t to out; *ret_rows gets the
 * number of rows.  For orders and lineitem, units from dss_gen_units() up
 * to dss_gen_units() + rf_orders are the refresh (RF1) orders.  -ENOMEM,
 * -ERANGE for units out of range.
 */
int dss_gen_chunk(const struct dss_gen *g, enum dss_table t, uint64_t lo, uint64_t hi,
		  struct dss_buf *out, uint64_t *ret_rows);

/* Key of order unit u (loaded orders first, then the refresh orders). */
uint64_t dss_order_key(const struct dss_gen *g, uint64_t u);
/* Number of lineitem rows of order unit u (1..7). */
unsigned dss_order_lines(const struct dss_gen *g, uint64_t u);
/* ps_suppkey of the i-th (0..3) supplier of part partkey. */
uint64_t dss_partsupp_suppkey(const struct dss_gen *g, uint64_t partkey, unsigned i);
/* p_retailprice of partkey, in cents. */
int64_t dss_part_price_cents(uint64_t partkey);

#endif
