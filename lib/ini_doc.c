/* SPDX-License-Identifier: GPL-2.0-or-later */
/* INI text to sections of key/value/line: see ini_doc.h. */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini_doc.h"
#include "lib/ini_lines.h"

struct doc_ctx {
	const struct dut_ini_doc_ops *ops;
	void *arg;
	struct dut_ini_lines in;   /* .line: of the line last handed to inih */
	struct dut_ini_doc doc;
	struct dut_ini_errors errs;
};

int dut_ini_refuse(struct dut_ini_header *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void dut_ini_verror(struct dut_ini_errors *e, unsigned line, const char *kind, const char *name,
		    const char *fmt, va_list ap)
{
	char msg[sizeof(((struct dut_error *)0)->msg)];

	if (e->failed)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (kind && name && *name)
		dut_error_set(e->err, "%s:%u: [%s %s]: %s", e->source, line, kind, name, msg);
	else if (kind)
		dut_error_set(e->err, "%s:%u: [%s]: %s", e->source, line, kind, msg);
	else
		dut_error_set(e->err, "%s:%u: %s", e->source, line, msg);
	e->failed = -EINVAL;
	e->line = line;
}

void dut_ini_error(struct dut_ini_errors *e, unsigned line, const char *kind, const char *name,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dut_ini_verror(e, line, kind, name, fmt, ap);
	va_end(ap);
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

int dut_ini_header_words(struct dut_ini_header *h, struct dut_ini_header_words *ret)
{
	const char *l = h->text, *end = l + h->len, *close = memchr(l, ']', h->len), *p, *q;

	if (!close)
		return dut_ini_refuse(h, "expected \"]\" to close the section header, found \"%.*s\"", (int)h->len, l);
	for (p = close + 1; p < end && (blank(*p) || *p == '\r'); p++)
		;
	if (p < end && *p != ';' && *p != '#')
		return dut_ini_refuse(h, "expected nothing after the section header, found \"%.*s\"", (int)(end - p), p);
	for (p = l + 1; p < close && blank(*p); p++)
		;
	for (end = close; end > p && blank(end[-1]); end--)
		;
	for (q = p; q < end && !blank(*q); q++)
		;
	*ret = (struct dut_ini_header_words){ .inner = p, .inner_len = (size_t)(end - p),
					      .kind = p, .kind_len = (size_t)(q - p) };
	while (q < end && blank(*q))
		q++;
	ret->name = q;
	ret->name_len = (size_t)(end - q);
	return 0;
}

int dut_ini_word_index(const char *const *words, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
			return (int)i;
	return -1;
}

int dut_ini_header_name(struct dut_ini_header *h, const char *kind, const char *name, size_t len, size_t max)
{
	if (dut_ini_name_ok(name, len, max))
		return 0;
	return dut_ini_refuse(h, "expected a name after \"[%s\" (1 to %zu letters, digits, '_', '-', '.'), found \"%.*s\"",
			      kind, max, (int)len, name);
}

const struct dut_ini_section *dut_ini_doc_find(const struct dut_ini_doc *doc, int kind, const char *name,
					       size_t len)
{
	for (size_t i = 0; i < doc->nsec; i++) {
		const struct dut_ini_section *s = &doc->sec[i];

		if (s->kind == kind && strlen(s->name) == len && memcmp(s->name, name, len) == 0)
			return s;
	}
	return NULL;
}

static void header_line(struct doc_ctx *c)
{
	struct dut_ini_header h = { .text = c->in.header, .len = c->in.header_len, .line = c->in.line, .name = "" };
	struct dut_ini_section *ns, *s;
	char *name;
	int r;

	r = c->ops->header(c->arg, &c->doc, &h);
	if (r == -EINVAL) {
		dut_ini_error(&c->errs, h.line, NULL, NULL, "%s", h.why);
		return;
	}
	if (r < 0) {
		c->errs.failed = r;
		return;
	}
	name = strndup(h.name ? h.name : "", h.name ? h.name_len : 0);
	if (!name) {
		c->errs.failed = -ENOMEM;
		return;
	}
	ns = realloc(c->doc.sec, (c->doc.nsec + 1) * sizeof(*ns));
	if (!ns) {
		free(name);
		c->errs.failed = -ENOMEM;
		return;
	}
	c->doc.sec = ns;
	s = &c->doc.sec[c->doc.nsec++];
	memset(s, 0, sizeof(*s));
	s->kind = h.kind;
	s->name = name;
	s->line = h.line;
}

/* ini_reader: one line per call, like fgets; lib/ini_lines does the checks. */
static char *reader(char *str, int num, void *stream)
{
	struct doc_ctx *c = stream;

	if (c->errs.failed)
		return NULL;
	switch (dut_ini_lines_next(&c->in, str, num)) {
	case DUT_INI_TEXT:
		return str;
	case DUT_INI_HEADER:
		header_line(c);
		return c->errs.failed ? NULL : str;
	case DUT_INI_ERROR:
		dut_ini_error(&c->errs, c->in.line, NULL, NULL, "%s", c->in.error);
		return NULL;
	case DUT_INI_END:
		break;
	}
	return NULL;
}

/* inih's key handler: the key goes to the last header read (inih's own
 * section name is ignored: the callback decided what the header is). */
static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct doc_ctx *c = user;
	struct dut_ini_section *s;
	struct dut_ini_kv *nkv;

	(void)section;
	if (c->errs.failed)
		return 1;
	if (!c->doc.nsec) {
		dut_ini_error(&c->errs, c->in.line, NULL, NULL, "expected %s before the first key, found \"%s\"", c->ops->headers,
			      name);
		return 1;
	}
	s = &c->doc.sec[c->doc.nsec - 1];
	nkv = realloc(s->kv, (s->nkv + 1) * sizeof(*nkv));
	if (!nkv) {
		c->errs.failed = -ENOMEM;
		return 1;
	}
	s->kv = nkv;
	nkv = &s->kv[s->nkv];
	nkv->key = strdup(name);
	nkv->value = strdup(value);
	nkv->line = c->in.line;
	s->nkv++;
	if (!nkv->key || !nkv->value)
		c->errs.failed = -ENOMEM;
	return 1;
}

int dut_ini_doc_parse(const char *text, size_t len, const char *source, const struct dut_ini_doc_ops *ops,
		      void *arg, struct dut_ini_doc *ret, struct dut_error *err)
{
	struct doc_ctx c = { .ops = ops, .arg = arg, .errs = { .source = source ? source : "<ini>", .err = err } };
	int line;

	dut_ini_lines_init(&c.in, text, len, ops->indent_why);
	line = ini_parse_stream(reader, &c, handler, &c);
	c.doc.lines = c.in.line;
	if (line < 0) {
		c.errs.failed = -ENOMEM;   /* inih could not allocate its line buffer */
	} else if (line > 0 && (!c.errs.failed || (unsigned)line <= c.errs.line)) {
		/* inih's own syntax error came first (or ours was a consequence of it) */
		c.errs.failed = 0;
		dut_ini_error(&c.errs, (unsigned)line, NULL, NULL, "expected \"key = value\", a [section] header or a comment");
	}
	if (c.errs.failed == -ENOMEM)
		dut_error_set(err, "%s: out of memory while reading the %s", c.errs.source, ops->what);
	else if (c.errs.failed < 0 && c.errs.failed != -EINVAL)
		dut_error_set(err, "%s:%u: %s", c.errs.source, c.in.line, strerror(-c.errs.failed));
	if (c.errs.failed < 0) {
		dut_ini_doc_free(&c.doc);
		return c.errs.failed;
	}
	*ret = c.doc;
	return 0;
}

void dut_ini_doc_free(struct dut_ini_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nsec; i++) {
		for (size_t k = 0; k < doc->sec[i].nkv; k++) {
			free(doc->sec[i].kv[k].key);
			free(doc->sec[i].kv[k].value);
		}
		free(doc->sec[i].kv);
		free(doc->sec[i].name);
	}
	free(doc->sec);
	memset(doc, 0, sizeof(*doc));
}
