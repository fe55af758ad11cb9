/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the DSS generator tests: generate a table, split its rows. */
#ifndef TESTS_DSS_GEN_UTIL_H
#define TESTS_DSS_GEN_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "pgload/dss/gen.h"

#define MAXF 16

struct rows {
	struct dss_buf buf;
	uint64_t n;
};

/* Generate the whole table t; 0, or -errno after recording a failure. */
int gen(double sf, uint64_t seed, enum dss_table t, struct rows *r);
/* Split the next line at *pos into fields; returns the count (0 at the end). */
unsigned next_row(const struct dss_buf *b, size_t *pos, char fields[MAXF][256]);
/* Days since 1970 of "YYYY-MM-DD" (libc's timegm, not the generator's calendar). */
long days(const char *s);
long cents(const char *s);
/* s is one of the NULL-terminated list. */
bool in_list(const char *s, const char *const *list);

#endif
