/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block sizes, cache keys and the record of a build; see pgbin.h.  Pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/pgbin.h"

static bool power_of_two_in(unsigned v, unsigned max)
{
	return v >= 1 && v <= max && (v & (v - 1)) == 0;
}

int dut_pg_parse_block_size(const char *text, bool wal, unsigned *kb, char *msg, size_t len)
{
	const char *accepts = wal ? "1, 2, 4, 8, 16, 32 or 64 kB" : "1, 2, 4, 8, 16 or 32 kB";
	size_t n = strspn(text, "0123456789");
	const char *unit = text + n;
	unsigned long v = n && n <= 3 ? strtoul(text, NULL, 10) : 0;

	if (n && n <= 3 && (!*unit || strcasecmp(unit, "kB") == 0 || strcasecmp(unit, "k") == 0) &&
	    text[0] != '0' && power_of_two_in((unsigned)v, wal ? 64 : 32)) {
		*kb = (unsigned)v;
		return 0;
	}
	snprintf(msg, len, "expected a %sblock size PostgreSQL accepts (%s, written 16kB), found \"%.40s\"",
		 wal ? "WAL " : "", accepts, text);
	return -EINVAL;
}

int dut_pg_build_key(unsigned major, unsigned block_kb, unsigned wal_block_kb, char *buf, size_t len)
{
	unsigned bs = block_kb ? block_kb : DUT_PG_DEFAULT_BLOCK_KB;
	unsigned wal = wal_block_kb ? wal_block_kb : DUT_PG_DEFAULT_BLOCK_KB;
	int w = wal == DUT_PG_DEFAULT_BLOCK_KB ? snprintf(buf, len, "%u-bs%uk", major, bs)
					       : snprintf(buf, len, "%u-bs%uk-wal%uk", major, bs, wal);

	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

static void copy_value(char *dst, size_t len, const char *v, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static bool number(const char *v, size_t n, unsigned *ret)
{
	unsigned long x = 0;

	if (!n || n > 9 || strspn(v, "0123456789") < n)
		return false;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (unsigned long)(v[i] - '0');
	*ret = (unsigned)x;
	return true;
}

int dut_pg_build_parse(const char *text, struct dut_pg_build *b)
{
	memset(b, 0, sizeof(*b));
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		const char *eq = memchr(line, '=', n);

		if (eq && line[0] != '#') {
			size_t k = (size_t)(eq - line), vn = n - k - 1;
			const char *v = eq + 1;

#define KEY(s) (k == sizeof(s) - 1 && memcmp(line, s, k) == 0)
			if (KEY("major"))
				(void)number(v, vn, &b->major);
			else if (KEY("block_size_kb"))
				(void)number(v, vn, &b->block_kb);
			else if (KEY("wal_block_size_kb"))
				(void)number(v, vn, &b->wal_block_kb);
			else if (KEY("build_seconds"))
				(void)number(v, vn, &b->build_seconds);
			else if (KEY("version"))
				copy_value(b->version, sizeof(b->version), v, vn);
			else if (KEY("suite"))
				copy_value(b->suite, sizeof(b->suite), v, vn);
			else if (KEY("configure"))
				copy_value(b->configure, sizeof(b->configure), v, vn);
#undef KEY
		}
		line += n + (line[n] == '\n');
	}
	if (b->major < DUT_PG_MIN_MAJOR || b->major > 999 || !power_of_two_in(b->block_kb, 32) ||
	    !power_of_two_in(b->wal_block_kb, 64))
		return -EINVAL;
	return 0;
}
