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
			      "majors Debian does not), or give its bindir", want_major, root, want_major,
			      n ? seen : "none", want_major);
	else
		dut_error_set(err, "no PostgreSQL server in %s/<major>/bin (found: %s): install one, e.g. "
			      "apt-get install postgresql-15 (tools/setup does), or give its bindir", root,
			      n ? seen : "none");
	return -ENOENT;
}
