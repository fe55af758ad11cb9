/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The experiment builder's vocabulary and error path: section, view and
 * replica names, name and setting checks, exp_error and exp_dup_to.  The
 * INI front end (experiment_parse.c) and the builders (experiment_build.c,
 * experiment_matrix.c, experiment_pgver.c) all use them, so they live here
 * and not in one of those (which made the four files one call cycle).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini_lines.h"
#include "tools/run/experiment_build.h"

const char *const exp_section_names[] = {
	[S_EXPERIMENT] = "experiment", [S_TARGET] = "target", [S_FILESYSTEM] = "filesystem",
	[S_DUTFS] = "dutfs", [S_POSTGRES] = "postgres", [S_TABLESPACE] = "tablespace",
	[S_REPLICA] = "replica", [S_MATRIX] = "matrix", [S_STEP] = "step", NULL,
};

const char *const exp_views[] = { "device", "syscall", "off", NULL };
const char *const exp_replica_modes[] = { "none", "async", "sync", NULL };

void exp_error(struct exp_ctx *c, unsigned line, const struct exp_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dut_ini_verror(&c->errs, line, s ? exp_section_names[s->kind] : NULL, s ? s->name : NULL, fmt, ap);
	va_end(ap);
}

bool exp_name_ok(const char *s, size_t n)
{
	return dut_ini_name_ok(s, n, DUT_EXP_NAME_MAX);
}

bool exp_dup_to(struct exp_ctx *c, char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	if (!*dst)
		c->errs.failed = -ENOMEM;
	return *dst != NULL;
}

bool dut_setting_value_ok(const char *v)
{
	/* pgload writes the setting into postgresql.conf: a newline would add lines */
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

bool dut_setting_name_ok(const char *s)
{
	return exp_setting_name_okn(s, strlen(s));
}

bool exp_setting_name_okn(const char *s, size_t n)
{
	if (!n || n > 63 || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}
