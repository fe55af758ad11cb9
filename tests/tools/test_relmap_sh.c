/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/relmap.sh maps pg_class.relkind to the relation map's kinds in SQL;
 * lib/relmap.c (relmap_kind_of_relkind) is the owner of that vocabulary and
 * pgload's maps use it.  This test reads the script's CASE and compares the
 * two for every relkind character, in pg_toast and outside it, so the two
 * cannot drift apart again ('p' and 'I' were table and index in the script,
 * other in lib).  A clause the test cannot read fails it: the script keeps
 * the form "WHEN c.relkind = 'X' [AND n.nspname = 'S'] THEN 'KIND'".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/relmap.h"
#include "tests/cu_main.h"

struct clause {
	char relkind;
	char schema[64];           /* "" = any */
	char kind[32];
};

struct sh_case {
	struct clause when[32];
	size_t n;
	char otherwise[32];
};

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	return p;
}

/* Where the next "WHEN " or "ELSE " after p starts, or end. */
static const char *next_clause(const char *p, const char *end)
{
	const char *w = strstr(p + 1, "WHEN "), *e = strstr(p + 1, "ELSE ");

	if (w && w < end && (!e || w < e))
		return w;
	return e && e < end ? e : end;
}

/* The CASE from "CASE WHEN c.relkind" to "END AS kind": 0, or -1 with why. */
static int read_case(const char *text, struct sh_case *c, char *why, size_t len)
{
	const char *p = strstr(text, "CASE WHEN c.relkind"), *end;

	if (!p || !(end = strstr(p, "END AS kind"))) {
		snprintf(why, len, "no \"CASE WHEN c.relkind ... END AS kind\" in the script");
		return -1;
	}
	for (p = skip_blank(p + strlen("CASE"), end); p < end; p = skip_blank(p, end)) {
		const char *stop = next_clause(p, end);
		char clause[200];
		struct clause *w = &c->when[c->n];
		int used = -1;

		snprintf(clause, sizeof(clause), "%.*s", (int)(stop - p), p);
		if (strncmp(clause, "ELSE ", 5) == 0) {
			if (sscanf(clause, "ELSE '%31[^']' %n", c->otherwise, &used) != 1 || used < 0 || clause[used] ||
			    stop != end || !c->n) {
				snprintf(why, len, "cannot read \"%s\" as the last clause", clause);
				return -1;
			}
			return 0;
		}
		if (c->n == sizeof(c->when) / sizeof(c->when[0])) {
			snprintf(why, len, "more than %zu WHEN clauses", c->n);
			return -1;
		}
		if (sscanf(clause, "WHEN c.relkind = '%c' AND n.nspname = '%63[^']' THEN '%31[^']' %n", &w->relkind,
			   w->schema, w->kind, &used) == 3 && used >= 0 && !clause[used]) {
			c->n++;
		} else if (used = -1, w->schema[0] = '\0',
			   sscanf(clause, "WHEN c.relkind = '%c' THEN '%31[^']' %n", &w->relkind, w->kind, &used) == 2 &&
			   used >= 0 && !clause[used]) {
			c->n++;
		} else {
			snprintf(why, len, "a clause this test cannot read: \"%s\"", clause);
			return -1;
		}
		p = stop;
	}
	snprintf(why, len, "no ELSE before END AS kind");
	return -1;
}

static const char *sh_kind(const struct sh_case *c, char relkind, const char *schema)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->when[i].relkind == relkind && (!c->when[i].schema[0] || strcmp(c->when[i].schema, schema) == 0))
			return c->when[i].kind;
	return c->otherwise;
}

static void test_script_agrees_with_lib(void)
{
	static const char *const schemas[] = { "public", "pg_toast", "pg_catalog" };
	_cleanup_free_ char *text = NULL;
	struct sh_case c = { .n = 0 };
	char path[4096], why[300] = "";
	size_t len = 0, compared = 0;

	snprintf(path, sizeof(path), "%s/tools/relmap.sh", cu_source_root());
	CU_ASSERT_FATAL(dut_read_small_file(path, 1 << 20, &text, &len) == 0);
	CU_CHECK(read_case(text, &c, why, sizeof(why)) == 0, "tools/relmap.sh: %s", why);
	if (why[0])
		return;
	/* every relkind PostgreSQL has (r i S t v m c f p I) and every other character */
	for (int ch = 0x21; ch < 0x7f; ch++) {
		for (size_t s = 0; s < sizeof(schemas) / sizeof(schemas[0]); s++) {
			const char *want = relmap_kind_name(relmap_kind_of_relkind((char)ch, schemas[s]));
			const char *got = sh_kind(&c, (char)ch, schemas[s]);

			CU_CHECK(strcmp(got, want) == 0, "relkind '%c' in %s: relmap.sh says %s, lib/relmap says %s",
				 ch, schemas[s], got, want);
			compared++;
		}
	}
	CU_CHECK(compared > 200 && c.n >= 6, "%zu comparisons over %zu clauses", compared, c.n);
}

/* The reader itself: it must not pass a script whose CASE it misreads. */
static void test_reader_refuses_other_forms(void)
{
	static const char *const texts[] = {
		"kind,",                                                                 /* no CASE */
		"CASE WHEN c.relkind = 'r' THEN 'table' END AS kind",                    /* no ELSE */
		"CASE WHEN c.relkind IN ('r', 'p') THEN 'table' ELSE 'other' END AS kind", /* another form */
		"CASE c.relkind WHEN 'r' THEN 'table' ELSE 'other' END AS kind",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct sh_case c = { .n = 0 };
		char why[300] = "";

		CU_CHECK(read_case(texts[i], &c, why, sizeof(why)) < 0, "text %zu was read: %zu clauses", i, c.n);
	}
}

static const struct cu_test tests[] = {
	{ "script_agrees_with_lib", test_script_agrees_with_lib },
	{ "reader_refuses_other_forms", test_reader_refuses_other_forms },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "relmap_sh", .tests = tests };
