/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ini_lines: the line reader under the rules and experiment parsers.  Each
 * row feeds a text through dut_ini_lines_next() as inih would and checks
 * the sequence of line kinds, the headers seen, the last line number and
 * the error; a last test runs the reader under the real ini_parse_stream().
 */
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "lib/ini_lines.h"
#include "tests/cu_main.h"

struct row {
	const char *name;
	const char *text;
	size_t len;            /* 0: strlen(text) */
	int num;               /* inih's buffer size; 0: 200 */
	const char *kinds;     /* T text, H header, E error, . end */
	const char *headers;   /* each header as seen, followed by '|' */
	unsigned line;         /* r.line when the reader stopped */
	const char *error;     /* fragment of the error, or NULL */
};

#define WHY "why"

static const struct row rows[] = {
	{ "empty", "", 0, 0, ".", "", 0, NULL },
	{ "keys_and_comments", "a = 1\n; c\n# d\n\nb = 2\n", 0, 0, "TTTTT.", "", 5, NULL },
	{ "no_final_newline", "a = 1\nb = 2", 0, 0, "TT.", "", 2, NULL },
	{ "headers", "[x]\na = 1\n[y z]\n", 0, 0, "HTH.", "[x]|[y z]|", 3, NULL },
	{ "header_at_end_without_newline", "a = 1\n[x]", 0, 0, "TH.", "[x]|", 2, NULL },
	{ "crlf_header", "[x]\r\na = 1\r\n[y]  ; c\r\n", 0, 0, "HTH.", "[x]|[y]  ; c|", 3, NULL },
	{ "lone_cr_header", "[x]\r", 0, 0, "H.", "[x]|", 1, NULL },
	{ "bom_then_header", "\xEF\xBB\xBF[x]\n", 0, 0, "H.", "[x]|", 1, NULL },
	{ "bom_then_key", "\xEF\xBB\xBF" "a = 1\n", 0, 0, "T.", "", 1, NULL },
	{ "bom_only_on_line_1", "a = 1\n\xEF\xBB\xBF[x]\n", 0, 0, "TT.", "", 2, NULL },
	{ "bom_then_indent", "\xEF\xBB\xBF  a = 1\n", 0, 0, "E", "", 1, "found white space (" WHY ")" },
	{ "nul_byte", "a = 1\nb\0c\nd = 2\n", 16, 0, "TE", "", 2, "expected text, found a NUL byte" },
	{ "nul_in_last_line", "a = 1\n\0", 7, 0, "TE", "", 2, "found a NUL byte" },
	{ "long_line", "a = 1\n0123456789\n", 0, 8, "TE", "", 2,
	  "line too long: expected at most 6 characters, found 10" },
	{ "longest_line_fits", "a = 1\n012345\n", 0, 8, "TT.", "", 2, NULL },
	{ "long_line_no_newline", "01234567", 0, 8, "E", "", 1, "expected at most 6 characters, found 8" },
	{ "indented_key", "[x]\na = 1\n  b = 2\n", 0, 0, "HTE", "[x]|", 3,
	  "expected a key, a [section] or a comment at the start of the line, found white space (" WHY ")" },
	{ "indented_tab", "\tb\n", 0, 0, "E", "", 1, "found white space" },
	{ "indented_header", " [x]\n", 0, 0, "E", "", 1, "found white space" },
	{ "indented_comment_and_blank", "  ; c\n\t# d\n   \n \r\n", 0, 0, "TTTT.", "", 4, NULL },
};

static void run_row(const struct row *w)
{
	struct dut_ini_lines r;
	char buf[256], kinds[32] = "", headers[128] = "";
	size_t len = w->len ? w->len : strlen(w->text);
	int num = w->num ? w->num : 200;

	dut_ini_lines_init(&r, w->text, len, WHY);
	for (size_t k = 0; k + 1 < sizeof(kinds); k++) {
		enum dut_ini_line t = dut_ini_lines_next(&r, buf, num);

		kinds[k] = "THE."[t == DUT_INI_TEXT ? 0 : t == DUT_INI_HEADER ? 1 : t == DUT_INI_ERROR ? 2 : 3];
		kinds[k + 1] = '\0';
		if (t == DUT_INI_TEXT || t == DUT_INI_HEADER)
			CU_CHECK(strlen(buf) < (size_t)num && memcmp(buf, w->text + r.pos - strlen(buf), strlen(buf)) == 0,
				 "%s: line %u was not copied as it is", w->name, r.line);
		if (t == DUT_INI_HEADER)
			snprintf(headers + strlen(headers), sizeof(headers) - strlen(headers), "%.*s|",
				 (int)r.header_len, r.header);
		if (t == DUT_INI_END || t == DUT_INI_ERROR)
			break;
	}
	CU_CHECK(strcmp(kinds, w->kinds) == 0, "%s: kinds \"%s\", want \"%s\"", w->name, kinds, w->kinds);
	CU_CHECK(strcmp(headers, w->headers) == 0, "%s: headers \"%s\", want \"%s\"", w->name, headers, w->headers);
	CU_CHECK(r.line == w->line, "%s: stopped at line %u, want %u", w->name, r.line, w->line);
	if (w->error)
		CU_CHECK(strstr(r.error, w->error) != NULL, "%s: error \"%s\", want \"%s\"", w->name, r.error, w->error);
}

static void test_line_table(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
}

static void test_without_indent_reason(void)
{
	struct dut_ini_lines r;
	char buf[64];

	dut_ini_lines_init(&r, " x\n", 3, NULL);
	CU_ASSERT_EQUAL(dut_ini_lines_next(&r, buf, sizeof(buf)), DUT_INI_ERROR);
	CU_CHECK(strcmp(r.error, "expected a key, a [section] or a comment at the start of the line, found white space") == 0,
		 "error \"%s\"", r.error);
	dut_ini_lines_init(&r, NULL, 5, NULL);
	CU_ASSERT_EQUAL(dut_ini_lines_next(&r, buf, sizeof(buf)), DUT_INI_END);
}

/* Under ini_parse_stream the key's line is the cursor's line when inih calls back. */
struct seen {
	struct dut_ini_lines in;
	char log[256];
};

static char *reader(char *str, int num, void *stream)
{
	struct seen *s = stream;
	enum dut_ini_line t = dut_ini_lines_next(&s->in, str, num);

	return t == DUT_INI_TEXT || t == DUT_INI_HEADER ? str : NULL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct seen *s = user;
	size_t l = strlen(s->log);

	snprintf(s->log + l, sizeof(s->log) - l, "%u:%s.%s=%s;", s->in.line, section, name, value);
	return 1;
}

static void test_under_inih(void)
{
	static const char text[] = "\xEF\xBB\xBF; rules\r\n[m]\r\na = 1\r\n\r\n[n]\nb=2\nc = x y\n";
	struct seen s = { .log = "" };
	int r;

	dut_ini_lines_init(&s.in, text, sizeof(text) - 1, WHY);
	r = ini_parse_stream(reader, &s, handler, &s);
	CU_CHECK(r == 0, "ini_parse_stream returned %d", r);
	CU_CHECK(strcmp(s.log, "3:m.a=1;6:n.b=2;7:n.c=x y;") == 0, "handler saw \"%s\"", s.log);
}

static const struct cu_test tests[] = {
	{ "line_table", test_line_table },
	{ "without_indent_reason", test_without_indent_reason },
	{ "under_inih", test_under_inih },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "ini_lines", .tests = tests };
