/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which PostgreSQL a configuration runs: [postgres] version = MAJOR or
 * bindir = DIR (one of them), block_size and wal_block_size (a build of
 * dutlab pg build, lib/pgbin.h), and the [matrix] keys version, block_size
 * and wal_block_size.  Pure: whether that major is installed or built, and
 * what its bindir holds, is the runner's check (tools/run/runner_check.c,
 * lib/pgbin.h); here only the text is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pgbin.h"
#include "tools/run/experiment_build.h"

#define EXP_PG_MAX_MAJOR 99
#define EXP_PG_BINDIR_MAX 1024

bool exp_pg_version_value(const char *text, unsigned *ret, char *msg, size_t len)
{
	size_t n = strspn(text, "0123456789");
	unsigned long v = n && n <= 3 ? strtoul(text, NULL, 10) : 0;

	if (!n || text[n] || n > 3 || text[0] == '0') {
		snprintf(msg, len, "expected a PostgreSQL major such as 17 (the installed minor release is "
			 "used), found \"%s\"", text);
		return false;
	}
	if (v < DUT_PG_MIN_MAJOR) {
		snprintf(msg, len, "PostgreSQL %lu is older than dutlab supports (%u and later)", v, DUT_PG_MIN_MAJOR);
		return false;
	}
	if (v > EXP_PG_MAX_MAJOR) {
		snprintf(msg, len, "expected a PostgreSQL major from %u to %u, found %lu", DUT_PG_MIN_MAJOR,
			 EXP_PG_MAX_MAJOR, v);
		return false;
	}
	*ret = (unsigned)v;
	return true;
}

static bool bindir_ok(const char *p, char *msg, size_t len)
{
	if (p[0] != '/') {
		snprintf(msg, len, "expected an absolute directory with initdb, pg_ctl and postgres (such as "
			 "%s/17/bin), found \"%s\"", DUT_PG_ROOT, p);
		return false;
	}
	for (const char *c = p; *c == '/';) {
		size_t n = strcspn(c + 1, "/");

		/* "." and ".." components: the path the run records must be the one it runs */
		if ((n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			break;
		c += 1 + n;
		if (!*c) {
			if (strlen(p) <= EXP_PG_BINDIR_MAX && dut_setting_value_ok(p))
				return true;
			break;
		}
	}
	snprintf(msg, len, "expected a plain absolute path (no . or .. components or control characters, "
		 "at most %d bytes), found \"%.80s\"", EXP_PG_BINDIR_MAX, p);
	return false;
}

static struct exp_kv *get_kv(struct exp_section *s, const char *key)
{
	for (size_t i = 0; i < s->nkv; i++)
		if (strcmp(s->kv[i].key, key) == 0)
			return &s->kv[i];
	return NULL;
}

bool exp_pg_block_value(const char *text, bool wal, unsigned *ret, char *msg, size_t len)
{
	return dut_pg_parse_block_size(text, wal, ret, msg, len) == 0;
}

/* [postgres] block_size and wal_block_size: not with bindir (a directory
 * is what it was built as; SHOW block_size says). */
static bool block_sizes(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e,
			const struct exp_kv *bin)
{
	static const char *const keys[] = { "block_size", "wal_block_size" };
	unsigned *kb[] = { &e->pg_block_kb, &e->pg_wal_block_kb };
	unsigned *line[] = { &e->pg_block_line, &e->pg_wal_block_line };
	char msg[300];

	for (int i = 0; i < 2; i++) {
		struct exp_kv *kv = get_kv(s, keys[i]);

		if (!kv)
			continue;
		if (bin) {
			exp_error(c, kv->line, s, "%s: bindir (line %u) names a PostgreSQL installation, which "
				  "has the block size it was built with; give %s without bindir (dutlab pg build "
				  "makes that build), or drop %s", keys[i], bin->line, keys[i], keys[i]);
			return false;
		}
		if (!exp_pg_block_value(kv->value, i == 1, kb[i], msg, sizeof(msg))) {
			exp_error(c, kv->line, s, "%s: %s", keys[i], msg);
			return false;
		}
		*line[i] = kv->line;
	}
	return true;
}

bool exp_build_pg_install(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e)
{
	struct exp_kv *ver = get_kv(s, "version"), *bin = get_kv(s, "bindir");
	char msg[300];

	if (!block_sizes(c, s, e, bin))
		return false;

	if (ver && bin) {
		exp_error(c, bin->line, s, "version (line %u) and bindir name the PostgreSQL to use twice; "
			  "give one of them (bindir = DIR for a server outside %s/<major>/bin)", ver->line,
			  DUT_PG_ROOT);
		return false;
	}
	if (ver) {
		if (!exp_pg_version_value(ver->value, &e->pg_major, msg, sizeof(msg))) {
			exp_error(c, ver->line, s, "version: %s", msg);
			return false;
		}
		e->pg_line = ver->line;
	}
	if (bin) {
		if (!bindir_ok(bin->value, msg, sizeof(msg))) {
			exp_error(c, bin->line, s, "bindir: %s", msg);
			return false;
		}
		e->pg_bindir = strdup(bin->value);
		if (!e->pg_bindir) {
			c->errs.failed = -ENOMEM;
			return false;
		}
		/* "/opt/pg/bin/" and "/opt/pg/bin" are one directory */
		for (size_t n = strlen(e->pg_bindir); n > 1 && e->pg_bindir[n - 1] == '/';)
			e->pg_bindir[--n] = '\0';
		e->pg_line = bin->line;
	}
	return true;
}
