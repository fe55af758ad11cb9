/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ini_doc: INI text to sections of key/value/line, the front end of the
 * rules and experiment parsers.  A table of texts, each with the exact
 * return, error message and document (sections, keys, lines) it must give
 * under a small header callback; then the callback's own errors, and every
 * allocation failing in turn (the test links with -Wl,--wrap for malloc,
 * calloc, realloc, strdup, strndup and free, so it also counts what is
 * left allocated).  Then the helpers the rules' and experiments' header
 * callbacks share ("[KIND NAME]" words, name check, duplicate lookup) and
 * the first-error recorder both parsers and their builders use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini_doc.h"
#include "tests/cu_main.h"

/* ---- allocation failures: fail the Nth call (0-based) while armed ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);

static bool armed;
static long fail_at = -1;   /* -1: never */
static long calls;          /* allocations tried while armed */
static long live;           /* blocks allocated minus freed while armed */

static bool should_fail(void)
{
	if (!armed)
		return false;
	return calls++ == fail_at;
}

static void *counted(void *p)
{
	if (armed && p)
		live++;
	return p;
}

void *__wrap_malloc(size_t n)
{
	return should_fail() ? NULL : counted(__real_malloc(n));
}

void *__wrap_calloc(size_t k, size_t n)
{
	return should_fail() ? NULL : counted(__real_calloc(k, n));
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	if (should_fail())
		return NULL;
	q = __real_realloc(p, n);
	return p ? q : counted(q);
}

char *__wrap_strdup(const char *s)
{
	return should_fail() ? NULL : counted(__real_strdup(s));
}

char *__wrap_strndup(const char *s, size_t n)
{
	return should_fail() ? NULL : counted(__real_strndup(s, n));
}

void __wrap_free(void *p)
{
	if (armed && p)
		live--;
	__real_free(p);
}

/* ---- the header callback under test: [a NAME] and [b], kinds 1 and 2 ---- */

static int last_errno;   /* returned for "[errno]" */

static int header(void *arg, const struct dut_ini_doc *doc, struct dut_ini_header *h)
{
	int *calls_seen = arg;

	(*calls_seen)++;
	if (h->len == 7 && memcmp(h->text, "[errno]", 7) == 0)
		return last_errno;
	if (h->len >= 4 && memcmp(h->text, "[a ", 3) == 0 && h->text[h->len - 1] == ']') {
		h->kind = 1;
		h->name = h->text + 3;
		h->name_len = h->len - 4;
	} else if (h->len == 3 && memcmp(h->text, "[b]", 3) == 0) {
		h->kind = 2;   /* name left as the lib's "" */
	} else {
		return dut_ini_refuse(h, "expected [a NAME] or [b], found \"%.*s\"", (int)h->len, h->text);
	}
	for (size_t i = 0; i < doc->nsec; i++) {
		if (doc->sec[i].kind == h->kind && strlen(doc->sec[i].name) == h->name_len &&
		    memcmp(doc->sec[i].name, h->name, h->name_len) == 0)
			return dut_ini_refuse(h, "already at line %u", doc->sec[i].line);
	}
	return 0;
}

static const struct dut_ini_doc_ops ops = {
	.what = "test",
	.headers = "an [a NAME] header",
	.indent_why = "why",
	.header = header,
};

/* "kind:name@line{key=value@line,...}" per section. */
static void dump(const struct dut_ini_doc *d, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->nsec && used < len; i++) {
		const struct dut_ini_section *s = &d->sec[i];

		used += (size_t)snprintf(buf + used, len - used, "%d:%s@%u{", s->kind, s->name, s->line);
		for (size_t k = 0; k < s->nkv && used < len; k++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s@%u", k ? "," : "", s->kv[k].key,
						 s->kv[k].value, s->kv[k].line);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "}");
	}
}

struct row {
	const char *name;
	const char *text;
	size_t len;          /* 0: strlen(text) */
	int ret;
	const char *want;    /* the document, or (ret < 0) the exact error */
	unsigned lines;      /* doc.lines on success */
};

#define LONG50 "01234567890123456789012345678901234567890123456789"

static const struct row rows[] = {
	{ "empty_file", "", 0, 0, "", 0 },
	{ "only_comments", "; c\n# d\n\n", 0, 0, "", 3 },
	{ "sections_and_keys", "[a one]\nk = v\nl=w x\n\n[b]\n[a two]\nm = 1 ; inline\n", 0, 0,
	  "1:one@1{k=v@2,l=w x@3}2:@5{}1:two@6{m=1@7}", 7 },
	{ "repeated_key_kept_in_order", "[a x]\nk = 1\nk = 2\n", 0, 0, "1:x@1{k=1@2,k=2@3}", 3 },
	{ "crlf", "[a x]\r\nk = v\r\n", 0, 0, "1:x@1{k=v@2}", 2 },
	{ "no_final_newline", "[a x]\nk = v", 0, 0, "1:x@1{k=v@2}", 2 },
	{ "bom", "\xEF\xBB\xBF[a x]\nk = v\n", 0, 0, "1:x@1{k=v@2}", 2 },
	{ "bom_then_key", "\xEF\xBB\xBFk = v\n", 0, -EINVAL,
	  "t.ini:1: expected an [a NAME] header before the first key, found \"k\"", 0 },
	{ "key_before_header", "; c\nk = v\n[a x]\n", 0, -EINVAL,
	  "t.ini:2: expected an [a NAME] header before the first key, found \"k\"", 0 },
	{ "key_before_header_then_syntax_error", "k = v\nbad\n", 0, -EINVAL,
	  "t.ini:1: expected an [a NAME] header before the first key, found \"k\"", 0 },
	{ "bad_header", "[a x]\nk = v\n[c]\n", 0, -EINVAL, "t.ini:3: expected [a NAME] or [b], found \"[c]\"", 0 },
	{ "bad_header_crlf", "[c] \r\n", 0, -EINVAL, "t.ini:1: expected [a NAME] or [b], found \"[c] \"", 0 },
	{ "duplicate_header", "[b]\n[a x]\n[b]\n", 0, -EINVAL, "t.ini:3: already at line 1", 0 },
	{ "nul_byte", "[a x]\nk = v\0w\n", 13, -EINVAL, "t.ini:2: expected text, found a NUL byte", 0 },
	{ "overlong_line", "[a x]\nk = " LONG50 LONG50 LONG50 LONG50 "\n", 0, -EINVAL,
	  "t.ini:2: line too long: expected at most 198 characters, found 204", 0 },
	{ "indented_continuation", "[a x]\nk = v\n  w\n", 0, -EINVAL,
	  "t.ini:3: expected a key, a [section] or a comment at the start of the line, found white space (why)", 0 },
	{ "indented_comment_is_fine", "[a x]\n  ; c\nk = v\n", 0, 0, "1:x@1{k=v@3}", 3 },
	{ "syntax_error", "[a x]\nk = v\nno value here\n", 0, -EINVAL,
	  "t.ini:3: expected \"key = value\", a [section] header or a comment", 0 },
	/* inih goes on after its own error; ours on a later line must not hide it */
	{ "syntax_error_before_bad_header", "[a x]\nbad\n[c]\n", 0, -EINVAL,
	  "t.ini:2: expected \"key = value\", a [section] header or a comment", 0 },
	{ "syntax_error_before_nul", "[a x]\nbad\nk\0\n", 10, -EINVAL,
	  "t.ini:2: expected \"key = value\", a [section] header or a comment", 0 },
	/* ours first: reading stops there, so inih never sees the later line */
	{ "bad_header_before_syntax_error", "[c]\nbad\n", 0, -EINVAL,
	  "t.ini:1: expected [a NAME] or [b], found \"[c]\"", 0 },
	{ "unclosed_header_goes_to_the_callback", "[a x\n", 0, -EINVAL,
	  "t.ini:1: expected [a NAME] or [b], found \"[a x\"", 0 },
};

static void run_row(const struct row *w)
{
	struct dut_ini_doc doc = { .lines = 12345 };
	struct dut_error err = { "untouched" };
	size_t len = w->len ? w->len : strlen(w->text);
	char got[512];
	int seen = 0, r;

	r = dut_ini_doc_parse(w->text, len, "t.ini", &ops, &seen, &doc, &err);
	CU_CHECK(r == w->ret, "%s: returned %d, want %d (%s)", w->name, r, w->ret, err.msg);
	if (w->ret < 0) {
		CU_CHECK(strcmp(err.msg, w->want) == 0, "%s: error \"%s\", want \"%s\"", w->name, err.msg, w->want);
		CU_CHECK(doc.lines == 12345 && !doc.sec, "%s: the document was written on failure", w->name);
		return;
	}
	dump(&doc, got, sizeof(got));
	CU_CHECK(strcmp(got, w->want) == 0, "%s: document \"%s\", want \"%s\"", w->name, got, w->want);
	CU_CHECK(doc.lines == w->lines, "%s: %u lines, want %u", w->name, doc.lines, w->lines);
	CU_CHECK(strcmp(err.msg, "untouched") == 0, "%s: error set on success: \"%s\"", w->name, err.msg);
	dut_ini_doc_free(&doc);
	CU_CHECK(doc.sec == NULL && doc.nsec == 0, "%s: free did not empty the document", w->name);
}

static void test_text_table(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
}

/* The longest line inih's 200-byte buffer holds is 198 characters and its newline. */
static void test_line_length_limit(void)
{
	char text[256];
	struct dut_ini_doc doc = { 0 };
	struct dut_error err = { "" };
	int seen = 0, r;

	for (int value_len = 193; value_len <= 195; value_len++) {
		int n = snprintf(text, sizeof(text), "[a x]\nk = %0*d\n", value_len, 7);

		r = dut_ini_doc_parse(text, (size_t)n, "t.ini", &ops, &seen, &doc, &err);
		if (value_len + 4 <= 198) {
			CU_CHECK(r == 0 && doc.nsec == 1 && doc.sec[0].nkv == 1 && strlen(doc.sec[0].kv[0].value) == (size_t)value_len,
				 "a line of %d characters: returned %d (%s)", value_len + 4, r, err.msg);
			dut_ini_doc_free(&doc);
		} else {
			char want[128];

			snprintf(want, sizeof(want), "t.ini:2: line too long: expected at most 198 characters, found %d", value_len + 4);
			CU_CHECK(r == -EINVAL && strcmp(err.msg, want) == 0, "a line of %d characters: %d \"%s\"",
				 value_len + 4, r, err.msg);
		}
	}
}

static void test_callback_errno_and_defaults(void)
{
	struct dut_ini_doc doc = { 0 };
	struct dut_error err = { "" };
	int seen = 0, r;

	last_errno = -EIO;
	r = dut_ini_doc_parse("[b]\n[errno]\n", 12, "t.ini", &ops, &seen, &doc, &err);
	CU_CHECK(r == -EIO, "a callback's -EIO came back as %d", r);
	CU_CHECK(strcmp(err.msg, "t.ini:2: Input/output error") == 0, "error \"%s\"", err.msg);
	CU_CHECK(seen == 2, "the callback saw %d headers, want 2", seen);

	r = dut_ini_doc_parse("k = v\n", 6, NULL, &ops, &seen, &doc, &err);
	CU_CHECK(r == -EINVAL && strcmp(err.msg, "<ini>:1: expected an [a NAME] header before the first key, found \"k\"") == 0,
		 "without a source: %d \"%s\"", r, err.msg);

	r = dut_ini_doc_parse(NULL, 0, "t.ini", &ops, &seen, &doc, NULL);
	CU_CHECK(r == 0 && doc.nsec == 0 && doc.lines == 0, "NULL text: %d, %zu sections", r, doc.nsec);
	r = dut_ini_doc_parse("[c]\n", 4, "t.ini", &ops, &seen, &doc, NULL);
	CU_CHECK(r == -EINVAL, "without err a refusal still returns -EINVAL, got %d", r);
	dut_ini_doc_free(NULL);
}

/* Every allocation the parse makes fails once in turn: -ENOMEM, the message, nothing leaked. */
static void test_each_allocation_fails(void)
{
	static const char text[] = "[a one]\nk = v\nl = w\n[b]\n[a two]\nm = 1\n";
	long tried = 0;

	for (fail_at = 0; fail_at < 100; fail_at++) {
		struct dut_ini_doc doc = { 0 };
		struct dut_error err = { "" };
		int seen = 0, r;

		calls = live = 0;
		armed = true;
		r = dut_ini_doc_parse(text, sizeof(text) - 1, "t.ini", &ops, &seen, &doc, &err);
		armed = false;
		tried = calls;
		if (fail_at >= calls) {
			CU_CHECK(r == 0, "with %ld allocations all succeeding: %d (%s)", calls, r, err.msg);
			dut_ini_doc_free(&doc);
			break;
		}
		CU_CHECK(r == -ENOMEM, "allocation %ld failing: returned %d (%s)", fail_at, r, err.msg);
		CU_CHECK(strcmp(err.msg, "t.ini: out of memory while reading the test") == 0,
			 "allocation %ld failing: error \"%s\"", fail_at, err.msg);
		CU_CHECK(live == 0, "allocation %ld failing: %ld blocks left allocated", fail_at, live);
		CU_CHECK(doc.sec == NULL, "allocation %ld failing: the document was written", fail_at);
	}
	/* 3 sections (name, array) and 3 keys (array, key, value) at least */
	CU_CHECK(tried >= 15, "only %ld allocations were made", tried);
	fail_at = -1;
}

/* A successful parse frees everything it allocated through dut_ini_doc_free. */
static void test_free_releases_all(void)
{
	static const char text[] = "[a one]\nk = v\n[b]\nl = w\n";
	struct dut_ini_doc doc = { 0 };
	int seen = 0, r;

	calls = live = 0;
	armed = true;
	r = dut_ini_doc_parse(text, sizeof(text) - 1, "t.ini", &ops, &seen, &doc, NULL);
	CU_CHECK(r == 0 && live > 0, "parse: %d, %ld blocks", r, live);
	dut_ini_doc_free(&doc);
	armed = false;
	CU_CHECK(live == 0, "%ld blocks left after dut_ini_doc_free", live);
}

/* "[KIND NAME]" split into its words, or refused with the message both parsers give. */
static void test_header_words(void)
{
	static const struct {
		const char *text;
		int want;
		const char *inner, *kind, *name, *why;
	} words[] = {
		{ "[model ssd]", 0, "model ssd", "model", "ssd", NULL },
		{ "[ \tmodel \t ssd\t ]  ; comment", 0, "model \t ssd", "model", "ssd", NULL },
		{ "[dutfs]", 0, "dutfs", "dutfs", "", NULL },
		{ "[dutfs]\r", 0, "dutfs", "dutfs", "", NULL },
		{ "[step a b]", 0, "step a b", "step", "a b", NULL },   /* the name check refuses "a b" */
		{ "[]", 0, "", "", "", NULL },
		{ "[model ssd] # x", 0, "model ssd", "model", "ssd", NULL },
		{ "[model ssd", -EINVAL, NULL, NULL, NULL,
		  "expected \"]\" to close the section header, found \"[model ssd\"" },
		{ "[model ssd] x", -EINVAL, NULL, NULL, NULL, "expected nothing after the section header, found \"x\"" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct dut_ini_header h = { .text = words[i].text, .len = strlen(words[i].text), .line = 3 };
		struct dut_ini_header_words w = { 0 };
		int r = dut_ini_header_words(&h, &w);

		CU_CHECK(r == words[i].want, "row %zu: r=%d", i, r);
		if (r < 0) {
			CU_CHECK(strcmp(h.why, words[i].why) == 0, "row %zu: why \"%s\"", i, h.why);
			continue;
		}
		CU_CHECK(w.inner_len == strlen(words[i].inner) && memcmp(w.inner, words[i].inner, w.inner_len) == 0 &&
			 w.kind_len == strlen(words[i].kind) && memcmp(w.kind, words[i].kind, w.kind_len) == 0 &&
			 w.name_len == strlen(words[i].name) && memcmp(w.name, words[i].name, w.name_len) == 0,
			 "row %zu: \"%.*s\" \"%.*s\" \"%.*s\"", i, (int)w.inner_len, w.inner, (int)w.kind_len, w.kind,
			 (int)w.name_len, w.name);
	}
}

/* The kind word's index, the name check's message, the duplicate lookup by kind and name. */
static void test_kind_name_and_duplicate(void)
{
	static const char *const kinds[] = { "model", "fault", "rule" };
	struct dut_ini_section sec[] = {
		{ .kind = 0, .name = "ssd", .line = 1 }, { .kind = 2, .name = "ssd", .line = 5 }, { .kind = 1, .name = "", .line = 9 },
	};
	struct dut_ini_doc doc = { .sec = sec, .nsec = 3 };
	struct dut_ini_header h = { .text = "[rule]", .len = 6 };

	CU_CHECK(dut_ini_word_index(kinds, 3, "rule", 4) == 2, "rule");
	CU_CHECK(dut_ini_word_index(kinds, 3, "rules", 4) == 2, "a counted prefix");
	CU_CHECK(dut_ini_word_index(kinds, 3, "rul", 3) == -1, "a prefix of a word is not the word");
	CU_CHECK(dut_ini_word_index(kinds, 3, "", 0) == -1, "empty");
	CU_CHECK(dut_ini_header_name(&h, "rule", "a.b-c_1", 7, 7) == 0, "a name of max bytes");
	CU_CHECK(dut_ini_header_name(&h, "rule", "a.b-c_12", 8, 7) == -EINVAL &&
		 strcmp(h.why, "expected a name after \"[rule\" (1 to 7 letters, digits, '_', '-', '.'), "
			"found \"a.b-c_12\"") == 0, "too long: %s", h.why);
	CU_CHECK(dut_ini_header_name(&h, "rule", "", 0, 7) == -EINVAL, "empty name");
	CU_CHECK(dut_ini_header_name(&h, "rule", "a b", 3, 7) == -EINVAL, "a blank inside");
	CU_CHECK(dut_ini_doc_find(&doc, 2, "ssd", 3) == &sec[1], "same name, other kind");
	CU_CHECK(dut_ini_doc_find(&doc, 1, "", 0) == &sec[2], "an unnamed section");
	CU_CHECK(dut_ini_doc_find(&doc, 0, "ss", 2) == NULL, "a prefix of a name");
	CU_CHECK(dut_ini_doc_find(&doc, 1, "ssd", 3) == NULL, "absent");
}

/* "SOURCE:LINE: [KIND NAME]: what", only the first error kept. */
static void test_first_error_only(void)
{
	static const struct {
		const char *kind, *name, *want;
	} forms[] = {
		{ "model", "ssd", "r.ini:7: [model ssd]: bad 42" },
		{ "dutfs", "", "r.ini:7: [dutfs]: bad 42" },
		{ "dutfs", NULL, "r.ini:7: [dutfs]: bad 42" },
		{ NULL, NULL, "r.ini:7: bad 42" },
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct dut_error err = { "" };
		struct dut_ini_errors e = { .source = "r.ini", .err = &err };

		dut_ini_error(&e, 7, forms[i].kind, forms[i].name, "bad %d", 42);
		dut_ini_error(&e, 9, NULL, NULL, "a consequence");
		CU_CHECK(e.failed == -EINVAL && e.line == 7 && strcmp(err.msg, forms[i].want) == 0,
			 "row %zu: %d line %u \"%s\"", i, e.failed, e.line, err.msg);
	}
	struct dut_ini_errors quiet = { .source = "r.ini", .failed = -ENOMEM };

	dut_ini_error(&quiet, 3, NULL, NULL, "after ENOMEM");
	CU_CHECK(quiet.failed == -ENOMEM && quiet.line == 0, "an earlier -errno is kept");
}

static const struct cu_test tests[] = {
	{ "text_table", test_text_table },
	{ "line_length_limit", test_line_length_limit },
	{ "callback_errno_and_defaults", test_callback_errno_and_defaults },
	{ "each_allocation_fails", test_each_allocation_fails },
	{ "free_releases_all", test_free_releases_all },
	{ "header_words", test_header_words },
	{ "kind_name_and_duplicate", test_kind_name_and_duplicate },
	{ "first_error_only", test_first_error_only },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "ini_doc", .tests = tests };
