/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Substitution parameters of the 22 queries: the TPC-H specification's
 * validation defaults and its random substitution rules (clause 2.4.x.3).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pgload/dss/queries.h"
#include "pgload/dss/rng.h"
#include "pgload/dss/spec.h"

/* The validation defaults; Q11's fraction is filled in from SF. */
static const char *const defaults[DSS_NQUERIES + 1][DSS_QPARAMS_MAX] = {
	[1] = { "90" },
	[2] = { "15", "BRASS", "EUROPE" },
	[3] = { "BUILDING", "1995-03-15" },
	[4] = { "1993-07-01" },
	[5] = { "ASIA", "1994-01-01" },
	[6] = { "1994-01-01", "0.06", "24" },
	[7] = { "FRANCE", "GERMANY" },
	[8] = { "BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL" },
	[9] = { "green" },
	[10] = { "1993-10-01" },
	[11] = { "GERMANY", NULL },
	[12] = { "MAIL", "SHIP", "1994-01-01" },
	[13] = { "special", "requests" },
	[14] = { "1995-09-01" },
	[15] = { "1996-01-01" },
	[16] = { "Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9" },
	[17] = { "Brand#23", "MED BOX" },
	[18] = { "300" },
	[19] = { "1", "10", "20", "Brand#12", "Brand#23", "Brand#34" },
	[20] = { "forest", "1994-01-01", "CANADA" },
	[21] = { "SAUDI ARABIA" },
	[22] = { "13", "31", "23", "29", "30", "18", "17" },
};

static const unsigned nparams[DSS_NQUERIES + 1] = {
	[1] = 1, [2] = 3, [3] = 2, [4] = 1, [5] = 2, [6] = 3, [7] = 2, [8] = 3, [9] = 1,
	[10] = 1, [11] = 2, [12] = 3, [13] = 2, [14] = 1, [15] = 1, [16] = 10, [17] = 2,
	[18] = 1, [19] = 6, [20] = 3, [21] = 1, [22] = 7,
};

__attribute__((format(printf, 3, 4)))
static void set(struct dss_qparams *p, unsigned i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->v[i], sizeof(p->v[i]), fmt, ap);
	va_end(ap);
}

static const char *pick(struct dss_rng *r, const struct dss_list *l)
{
	return l->v[dss_rng_range(r, 0, (int64_t)l->n - 1)];
}

/* The first day of month number m counted from January of year y0. */
static void month(struct dss_qparams *p, unsigned i, int y0, int64_t m)
{
	set(p, i, "%04d-%02d-01", y0 + (int)(m / 12), (int)(m % 12) + 1);
}

static void year(struct dss_qparams *p, unsigned i, struct dss_rng *r)
{
	set(p, i, "%04d-01-01", (int)dss_rng_range(r, 1993, 1997));
}

/* n distinct integers in [lo, hi]. */
static void distinct(struct dss_rng *r, int64_t lo, int64_t hi, unsigned n, int64_t *out)
{
	for (unsigned i = 0; i < n; i++) {
		bool again;
		do {
			out[i] = dss_rng_range(r, lo, hi);
			again = false;
			for (unsigned j = 0; j < i; j++)
				again |= out[j] == out[i];
		} while (again);
	}
}

static void brand(struct dss_qparams *p, unsigned i, struct dss_rng *r)
{
	set(p, i, "Brand#%d%d", (int)dss_rng_range(r, 1, 5), (int)dss_rng_range(r, 1, 5));
}

static void random_params(unsigned q, struct dss_rng *r, struct dss_qparams *p)
{
	static const char *const q13_w1[] = { "special", "pending", "unusual", "express" };
	static const char *const q13_w2[] = { "packages", "requests", "accounts", "deposits" };
	int64_t v[8];
	int32_t d;
	int y;
	unsigned m, dd;

	switch (q) {
	case 1: set(p, 0, "%d", (int)dss_rng_range(r, 60, 120)); break;
	case 2:
		set(p, 0, "%d", (int)dss_rng_range(r, 1, 50));
		set(p, 1, "%s", pick(r, &dss_type_s3));
		set(p, 2, "%s", dss_regions[dss_rng_range(r, 0, 4)]);
		break;
	case 3:
		set(p, 0, "%s", pick(r, &dss_segments));
		d = dss_day(1995, 3, 1) + (int32_t)dss_rng_range(r, 0, 30);
		dss_civil(d, &y, &m, &dd);
		set(p, 1, "%04d-%02u-%02u", y, m, dd);
		break;
	case 4: month(p, 0, 1993, dss_rng_range(r, 0, 57)); break;      /* 1993-01 .. 1997-10 */
	case 5:
		set(p, 0, "%s", dss_regions[dss_rng_range(r, 0, 4)]);
		year(p, 1, r);
		break;
	case 6:
		year(p, 0, r);
		set(p, 1, "0.%02d", (int)dss_rng_range(r, 2, 9));
		set(p, 2, "%d", (int)dss_rng_range(r, 24, 25));
		break;
	case 7:
		distinct(r, 0, 24, 2, v);
		set(p, 0, "%s", dss_nations[v[0]].name);
		set(p, 1, "%s", dss_nations[v[1]].name);
		break;
	case 8:
		v[0] = dss_rng_range(r, 0, 24);
		set(p, 0, "%s", dss_nations[v[0]].name);
		set(p, 1, "%s", dss_regions[dss_nations[v[0]].region]);
		set(p, 2, "%s %s %s", pick(r, &dss_type_s1), pick(r, &dss_type_s2),
		    pick(r, &dss_type_s3));
		break;
	case 9: set(p, 0, "%s", pick(r, &dss_colors)); break;
	case 10: month(p, 0, 1993, 1 + dss_rng_range(r, 0, 23)); break; /* 1993-02 .. 1995-01 */
	case 11: set(p, 0, "%s", dss_nations[dss_rng_range(r, 0, 24)].name); break;
	case 12:
		distinct(r, 0, (int64_t)dss_modes.n - 1, 2, v);
		set(p, 0, "%s", dss_modes.v[v[0]]);
		set(p, 1, "%s", dss_modes.v[v[1]]);
		year(p, 2, r);
		break;
	case 13:
		set(p, 0, "%s", q13_w1[dss_rng_range(r, 0, 3)]);
		set(p, 1, "%s", q13_w2[dss_rng_range(r, 0, 3)]);
		break;
	case 14: month(p, 0, 1993, dss_rng_range(r, 0, 59)); break;     /* 1993-01 .. 1997-12 */
	case 15: month(p, 0, 1993, dss_rng_range(r, 0, 57)); break;     /* 1993-01 .. 1997-10 */
	case 16:
		brand(p, 0, r);
		set(p, 1, "%s %s", pick(r, &dss_type_s1), pick(r, &dss_type_s2));
		distinct(r, 1, 50, 8, v);
		for (unsigned i = 0; i < 8; i++)
			set(p, 2 + i, "%d", (int)v[i]);
		break;
	case 17:
		brand(p, 0, r);
		set(p, 1, "%s %s", pick(r, &dss_cont_s1), pick(r, &dss_cont_s2));
		break;
	case 18: set(p, 0, "%d", (int)dss_rng_range(r, 312, 315)); break;
	case 19:
		set(p, 0, "%d", (int)dss_rng_range(r, 1, 10));
		set(p, 1, "%d", (int)dss_rng_range(r, 10, 20));
		set(p, 2, "%d", (int)dss_rng_range(r, 20, 30));
		for (unsigned i = 3; i < 6; i++)
			brand(p, i, r);
		break;
	case 20:
		set(p, 0, "%s", pick(r, &dss_colors));
		year(p, 1, r);
		set(p, 2, "%s", dss_nations[dss_rng_range(r, 0, 24)].name);
		break;
	case 21: set(p, 0, "%s", dss_nations[dss_rng_range(r, 0, 24)].name); break;
	case 22:
		distinct(r, 10, 34, 7, v);
		for (unsigned i = 0; i < 7; i++)
			set(p, i, "%d", (int)v[i]);
		break;
	}
}

int dss_query_params(unsigned q, bool random, uint64_t seed, uint64_t stream, double sf,
		     struct dss_qparams *ret)
{
	struct dss_qparams p = { .n = 0 };

	if (q < 1 || q > DSS_NQUERIES || !(sf > 0))
		return -EINVAL;
	p.n = nparams[q];
	if (random) {
		struct dss_rng r = dss_rng_at(seed, 0xfe, q, stream);
		random_params(q, &r, &p);
	} else {
		for (unsigned i = 0; i < p.n; i++)
			if (defaults[q][i])
				set(&p, i, "%s", defaults[q][i]);
	}
	/* Q11's FRACTION is 0.0001 / SF in both cases. */
	if (q == 11)
		set(&p, 1, "%.12g", 0.0001 / sf);
	*ret = p;
	return 0;
}
