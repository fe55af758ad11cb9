/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/crash/crash_load.h"

static const char *const table_names[CRASH_LT_N] = {
	[CRASH_LT_HISTORY] = "pgbench_history", [CRASH_LT_TELLERS] = "pgbench_tellers",
	[CRASH_LT_ACCOUNTS] = "pgbench_accounts", [CRASH_LT_BRANCHES] = "pgbench_branches",
};

/* rows counted through query_to_xml: one statement whatever tables exist */
const char crash_load_query[] =
	"SELECT c.relname, c.relkind, coalesce(i.indisvalid::text, ''), "
	"CASE WHEN c.relkind = 'r' THEN (xpath('/row/n/text()', query_to_xml("
	"'SELECT count(*) AS n FROM ' || c.oid::regclass, false, true, '')))[1]::text ELSE '' END "
	"FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid "
	"WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'pgbench\\_%' ORDER BY 1";

const char *crash_load_table_name(enum crash_load_table t)
{
	return (unsigned)t < CRASH_LT_N ? table_names[t] : "?";
}

static int table_index(const char *name, size_t len)
{
	for (int t = 0; t < CRASH_LT_N; t++)
		if (strlen(table_names[t]) == len && !strncmp(name, table_names[t], len))
			return t;
	return -1;
}

int crash_load_parse_acks(const char *text, struct crash_load_acks *ret, unsigned *bad_line)
{
	struct crash_load_acks a = { .n = 0 };
	unsigned line = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n"), w = strcspn(p, " \n");
		const char *arg = p + w + (p[w] == ' ');
		size_t alen = n - (size_t)(arg - p) < n ? n - (size_t)(arg - p) : 0;
		int t = p[w] == ' ' ? table_index(arg, alen) : -1;

		line++;
		if (n == 0) {
			p++;
			continue;
		}
#define IS(word) (w == strlen(word) && !strncmp(p, word, w))
		if (IS("drop") && p[w] != ' ')
			a.drop = true;
		else if (IS("create") && t >= 0)
			a.create[t] = true;
		else if (IS("load") && p[w] != ' ')
			a.load = true;
		else if (IS("vacuum") && t >= 0)
			a.vacuum[t] = true;
		else if (IS("key") && t >= 0 && t != CRASH_LT_HISTORY)
			a.key[t] = true;
		else if (IS("checkpoint") && p[w] != ' ')
			a.checkpoint = true;
		else {
			*bad_line = line;
			return -EINVAL;
		}
#undef IS
		a.n++;
		snprintf(a.last, sizeof(a.last), "%.*s", (int)(n < 47 ? n : 47), p);
		p += n + (p[n] == '\n');
	}
	*ret = a;
	return 0;
}

int crash_load_parse_obs(const char *text, struct crash_load_obs *ret)
{
	struct crash_load_obs o;

	memset(&o, 0, sizeof(o));
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char line[256], *f[4];
		int nf = 0, t;
		size_t k;

		if (n == 0) {
			p++;
			continue;
		}
		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, n);
		line[n] = 0;
		p += n + (p[n] == '\n');
		/* strsep keeps empty fields (the valid column of a table, the rows of an index) */
		for (char *s = line; nf < 4 && (f[nf] = strsep(&s, "|")) != NULL; nf++)
			;
		if (nf != 4)
			return -EINVAL;
		k = strlen(f[0]);
		if (!strcmp(f[1], "r")) {
			char *end;
			long long v;

			if ((t = table_index(f[0], k)) < 0)
				continue;   /* another pgbench_ table: not the load's */
			errno = 0;
			v = strtoll(f[3], &end, 10);
			if (errno || !*f[3] || *end || v < 0)
				return -EINVAL;
			o.table[t] = true;
			o.rows[t] = v;
		} else if (!strcmp(f[1], "i") && k > 5 && !strcmp(f[0] + k - 5, "_pkey")) {
			if ((t = table_index(f[0], k - 5)) < 0)
				continue;
			o.key[t] = true;
			o.key_valid[t] = !strcmp(f[2], "true");
		}
	}
	*ret = o;
	return 0;
}

struct findings {
	unsigned n;
	char *detail;
	size_t len;
};

static void finding(struct findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void finding(struct findings *f, const char *fmt, ...)
{
	va_list ap;

	if (f->n++ == 0 && f->len) {
		va_start(ap, fmt);
		vsnprintf(f->detail, f->len, fmt, ap);
		va_end(ap);
	}
}

unsigned crash_load_judge(const struct crash_load_acks *a, const struct crash_load_obs *o, int64_t scale,
			  char *detail, size_t len)
{
	/* the rows the load transaction commits (pgbench's counts per scale unit) */
	const int64_t full[CRASH_LT_N] = { [CRASH_LT_HISTORY] = 0, [CRASH_LT_TELLERS] = 10 * scale,
					  [CRASH_LT_ACCOUNTS] = 100000 * scale, [CRASH_LT_BRANCHES] = scale };
	static const enum crash_load_table loaded[] = { CRASH_LT_BRANCHES, CRASH_LT_TELLERS, CRASH_LT_ACCOUNTS };
	struct findings f = { 0, detail, len };
	bool any_rows = false, all_full = true, any_key = false;

	if (len)
		detail[0] = 0;
	for (int t = 0; t < CRASH_LT_N; t++)
		if (a->create[t] && !o->table[t])
			finding(&f, "%s is missing: its CREATE TABLE was acknowledged", table_names[t]);
	if (o->table[CRASH_LT_HISTORY] && o->rows[CRASH_LT_HISTORY] != 0)
		finding(&f, "pgbench_history has %" PRId64 " rows: the load writes none", o->rows[CRASH_LT_HISTORY]);
	for (size_t i = 0; i < sizeof(loaded) / sizeof(loaded[0]); i++) {
		enum crash_load_table t = loaded[i];
		int64_t rows = o->table[t] ? o->rows[t] : 0;

		any_rows |= rows != 0;
		all_full &= o->table[t] && rows == full[t];
		if (rows != 0 && rows != full[t])
			finding(&f, "%s has %" PRId64 " of the load's %" PRId64 " rows: a partial COPY (the load is one "
				"transaction)", table_names[t], rows, full[t]);
	}
	if (a->load && !all_full)
		finding(&f, "the acknowledged load is not all there (branches %" PRId64 ", tellers %" PRId64
			", accounts %" PRId64 " rows)", o->rows[CRASH_LT_BRANCHES], o->rows[CRASH_LT_TELLERS],
			o->rows[CRASH_LT_ACCOUNTS]);
	else if (any_rows && !all_full)
		finding(&f, "the load is half there (branches %" PRId64 ", tellers %" PRId64 ", accounts %" PRId64
			" rows): one transaction must be all or nothing", o->rows[CRASH_LT_BRANCHES],
			o->rows[CRASH_LT_TELLERS], o->rows[CRASH_LT_ACCOUNTS]);
	for (size_t i = 0; i < sizeof(loaded) / sizeof(loaded[0]); i++) {
		enum crash_load_table t = loaded[i];

		any_key |= o->key[t];
		if (a->key[t] && !o->key[t])
			finding(&f, "%s_pkey is missing: its ALTER TABLE ADD PRIMARY KEY was acknowledged", table_names[t]);
		else if (o->key[t] && !o->key_valid[t])
			finding(&f, "%s_pkey is present but not valid: an index build is one transaction", table_names[t]);
	}
	/* commit order: a key was added after the load committed */
	if (any_key && !all_full)
		finding(&f, "a primary key is there but the load it followed is not (commits survive in commit order)");
	return f.n;
}
