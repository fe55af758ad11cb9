/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Value domains of the TPC-H-derived schema, written from the TPC-H
 * specification's descriptions (clause 4.2): nations and regions, part
 * types and containers (syllable lists), colours for part names, market
 * segments, order priorities, ship instructions and modes, and the fixed
 * dates.  Dates are day numbers counted from 1992-01-01 (day 0).
 */
#ifndef DSS_SPEC_H
#define DSS_SPEC_H

#include <stddef.h>
#include <stdint.h>

struct dss_list {
	const char *const *v;
	size_t n;
};

struct dss_nation {
	const char *name;
	unsigned region;
};

extern const struct dss_nation dss_nations[25];
extern const char *const dss_regions[5];

extern const struct dss_list dss_colors;          /* 92 colours, p_name words */
extern const struct dss_list dss_type_s1, dss_type_s2, dss_type_s3;
extern const struct dss_list dss_cont_s1, dss_cont_s2;
extern const struct dss_list dss_segments, dss_priorities;
extern const struct dss_list dss_instructions, dss_modes;

/* Fixed dates (day numbers from 1992-01-01). */
#define DSS_STARTDATE 0       /* 1992-01-01 */
#define DSS_CURRENTDATE 1263  /* 1995-06-17 */
#define DSS_ENDDATE 2556      /* 1998-12-31 */

/* Day number of y-m-d (Gregorian; any date from 1970 on). */
int32_t dss_day(int y, unsigned m, unsigned d);
/* y, m, d of a day number. */
void dss_civil(int32_t day, int *ret_y, unsigned *ret_m, unsigned *ret_d);
/* Writes "YYYY-MM-DD" (10 bytes, no NUL) and returns buf + 10. */
char *dss_put_date(char *buf, int32_t day);

#endif
