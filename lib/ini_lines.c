/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The line reader behind our inih parsers: see ini_lines.h. */
#include <stdio.h>
#include <string.h>

#include "lib/ini_lines.h"

void dut_ini_lines_init(struct dut_ini_lines *r, const char *text, size_t len, const char *indent_why)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	r->len = text ? len : 0;
	r->indent_why = indent_why;
}

static enum dut_ini_line fail(struct dut_ini_lines *r, const char *msg, int max, size_t found)
{
	if (max >= 0)
		snprintf(r->error, sizeof(r->error), "%s: expected at most %d characters, found %zu", msg, max, found);
	else
		snprintf(r->error, sizeof(r->error), "%s", msg);
	return DUT_INI_ERROR;
}

enum dut_ini_line dut_ini_lines_next(struct dut_ini_lines *r, char *str, int num)
{
	const char *l, *nl;
	size_t n, skip = 0;

	r->header = NULL;
	r->header_len = 0;
	if (r->pos >= r->len || num < 1)
		return DUT_INI_END;
	l = r->text + r->pos;
	nl = memchr(l, '\n', r->len - r->pos);
	n = nl ? (size_t)(nl - l) + 1 : r->len - r->pos;
	r->line++;
	if (memchr(l, '\0', n))
		return fail(r, "expected text, found a NUL byte", -1, 0);
	if (n >= (size_t)num)   /* inih needs room for the line and its NUL */
		return fail(r, "line too long", num - 2, n - (nl != NULL));
	memcpy(str, l, n);
	str[n] = '\0';
	r->pos += n;

	if (r->line == 1 && n >= 3 && memcmp(l, "\xEF\xBB\xBF", 3) == 0)
		skip = 3;   /* inih skips a UTF-8 byte-order mark */
	if (skip < n && (l[skip] == ' ' || l[skip] == '\t')) {
		size_t i = skip;

		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		if (i < n && l[i] != '\n' && l[i] != '\r' && l[i] != ';' && l[i] != '#') {
			snprintf(r->error, sizeof(r->error),
				 "expected a key, a [section] or a comment at the start of the line, found white space%s%s%s",
				 r->indent_why ? " (" : "", r->indent_why ? r->indent_why : "", r->indent_why ? ")" : "");
			return DUT_INI_ERROR;
		}
		return DUT_INI_TEXT;
	}
	if (skip < n && l[skip] == '[') {
		size_t hl = n - skip - (nl != NULL);

		if (hl && l[skip + hl - 1] == '\r')
			hl--;
		r->header = l + skip;
		r->header_len = hl;
		return DUT_INI_HEADER;
	}
	return DUT_INI_TEXT;
}

bool dut_ini_name_ok(const char *s, size_t n, size_t max)
{
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '-' || ch == '.'))
			return false;
	}
	return true;
}
