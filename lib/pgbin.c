/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Choosing a PostgreSQL installation; see pgbin.h.  Pure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/pgbin.h"

static bool usable(const struct dut_pg_install *p)
{
	return p->major >= DUT_PG_MIN_MAJOR && p->has_initdb && p->has_pg_ctl;
}

/* "13, 15 (no pg_ctl), 17" into buf */
static void describe(const struct dut_pg_install *found, size_t n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		const struct dut_pg_install *p = &found[i];
		const char *why = p->major < DUT_PG_MIN_MAJOR ? " (older than 13)"
				  : !p->has_initdb && !p->has_pg_ctl ? " (no initdb, no pg_ctl: the client only)"
				  : !p->has_initdb ? " (no initdb)" : !p->has_pg_ctl ? " (no pg_ctl)" : "";
		int w = snprintf(buf + at, len - at, "%s%u%s", i ? ", " : "", p->major, why);

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

int dut_pgbin_choose(const struct dut_pg_install *found, size_t n, unsigned want_major,
		     const char *root, struct dut_error *err)
{
	char seen[512];
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		if (!usable(&found[i]))
			continue;
		if (want_major ? found[i].major == want_major
			       : best < 0 || found[i].major > found[best].major)
			best = (int)i;
	}
	if (best >= 0)
		return best;
	describe(found, n, seen, sizeof(seen));
	if (want_major && want_major < DUT_PG_MIN_MAJOR)
		dut_error_set(err, "PostgreSQL %u is older than dutlab supports (%u and later)", want_major,
			      DUT_PG_MIN_MAJOR);
	else if (want_major)
		dut_error_set(err, "PostgreSQL %u is not installed in %s/%u/bin (found: %s): install the "
			      "Debian package postgresql-%u (the PostgreSQL project's apt repository has the "
			      "majors Debian does not), build it from Debian's source (dutlab pg build --major "
			      "%u), or give its bindir", want_major, root, want_major, n ? seen : "none", want_major,
			      want_major);
	else
		dut_error_set(err, "no PostgreSQL server in %s/<major>/bin (found: %s): install one, e.g. "
			      "apt-get install postgresql-15 (tools/setup does), or give its bindir", root,
			      n ? seen : "none");
	return -ENOENT;
}

/* Digits at s (no sign): the number, and where they end; -EINVAL without any. */
static int leading_uint(const char *s, unsigned *ret, const char **end)
{
	unsigned long v = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9' && v <= 100000)
		v = v * 10 + (unsigned long)(*p++ - '0');
	if (p == s || v > 100000)
		return -EINVAL;
	*ret = (unsigned)v;
	*end = p;
	return 0;
}

int dut_pgbin_parse_version(const char *text, unsigned *ret_major)
{
	const char *p = text ? strstr(text, "(PostgreSQL)") : NULL, *end;
	unsigned major;

	if (!p)
		return -EINVAL;
	p += strlen("(PostgreSQL)");
	while (*p == ' ')
		p++;
	/* "15.14", "18beta1", "9.6.24": the major is what comes before the first non-digit */
	if (leading_uint(p, &major, &end) < 0 || major == 0)
		return -EINVAL;
	*ret_major = major;
	return 0;
}

int dut_pgbin_parse_pg_version(const char *text, unsigned *ret_major)
{
	const char *end;
	unsigned major, minor;

	if (!text || leading_uint(text, &major, &end) < 0 || major == 0)
		return -EINVAL;
	/* "9.6" before PostgreSQL 10 */
	if (*end == '.' && leading_uint(end + 1, &minor, &end) < 0)
		return -EINVAL;
	while (*end == '\n' || *end == '\r' || *end == ' ')
		end++;
	if (*end)
		return -EINVAL;
	*ret_major = major;
	return 0;
}
