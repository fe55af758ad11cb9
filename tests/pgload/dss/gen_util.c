/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the DSS generator tests (see gen_util.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/cu_main.h"
#include "tests/pgload/dss/gen_util.h"

int gen(double sf, uint64_t seed, enum dss_table t, struct rows *r)
{
	struct dss_gen g;
	int ret = dss_gen_init(&g, seed, sf);

	memset(r, 0, sizeof(*r));
	if (ret == 0)
		ret = dss_gen_chunk(&g, t, 0, dss_gen_units(&g, t), &r->buf, &r->n);
	dss_gen_free(&g);
	CU_CHECK(ret == 0, "generating %s at SF %g: %d", dss_table_name(t), sf, ret);
	return ret;
}


unsigned next_row(const struct dss_buf *b, size_t *pos, char fields[MAXF][256])
{
	unsigned n = 0;
	size_t len = 0;

	if (*pos >= b->len)
		return 0;
	while (*pos < b->len && b->p[*pos] != '\n') {
		char c = b->p[(*pos)++];
		if (c == '|') {
			fields[n < MAXF ? n : MAXF - 1][len] = '\0';
			n++;
			len = 0;
		} else if (n < MAXF && len < 255) {
			fields[n][len++] = c;
		}
	}
	(*pos)++;
	fields[n < MAXF ? n : MAXF - 1][len] = '\0';
	return n + 1;
}

long days(const char *s)
{
	struct tm tm = { 0 };

	if (!strptime(s, "%Y-%m-%d", &tm))
		return -100000;
	return (long)(timegm(&tm) / 86400);
}

long cents(const char *s)
{
	return lround(strtod(s, NULL) * 100);
}

bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

