/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The 22 decision-support queries of the TPC-H-derived workload, written
 * from the TPC-H specification's query definitions in PostgreSQL syntax
 * (Q15 uses a WITH clause instead of a view, so a query is one statement
 * that EXPLAIN can take).  Results of this workload are "TPC-H-derived":
 * they are not TPC-H results and must not be called so.
 *
 * Substitution parameters: the specification's validation defaults, or
 * random ones drawn as the specification's substitution rules say, from a
 * stream keyed by (seed, query, stream number), so a run is reproducible.
 * Templates mark parameter i as {i} (1-based); values are generated here
 * (never taken from users) and contain no quote.
 */
#ifndef DSS_QUERIES_H
#define DSS_QUERIES_H

#include <stdbool.h>
#include <stdint.h>

#define DSS_NQUERIES 22
#define DSS_QPARAMS_MAX 10

struct dss_qparams {
	unsigned n;
	char v[DSS_QPARAMS_MAX][40];
};

/* Query q (1..22): the template, with {i} placeholders; NULL if q is out of range. */
const char *dss_query_template(unsigned q);
/* A one-line description ("pricing summary report"). */
const char *dss_query_title(unsigned q);

/*
 * Parameters of query q: the validation defaults (random false), or random
 * ones from (seed, q, stream).  sf scales Q11's fraction (0.0001 / SF).
 * -EINVAL for q out of range.
 */
int dss_query_params(unsigned q, bool random, uint64_t seed, uint64_t stream, double sf,
		     struct dss_qparams *ret);

/* The query text with parameters substituted (malloc'ed); -EINVAL, -ENOMEM. */
int dss_query_text(unsigned q, const struct dss_qparams *p, char **ret);

#endif
