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
	const char *source;
	const struct dut_ini_doc_ops *ops;
	void *arg;
	struct dut_ini_lines in;   /* .line: of the line last handed to inih */
	struct dut_ini_doc doc;
	int failed;                /* -errno once an error is recorded */
	unsigned err_line;         /* of the recorded -EINVAL */
	struct dut_error *err;
};

int dut_ini_refuse(struct dut_ini_header *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Record the first error only: later ones follow from it. */
static void ctx_error(struct doc_ctx *c, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void ctx_error(struct doc_ctx *c, unsigned line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (c->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dut_error_set(c->err, "%s:%u: %s", c->source, line, msg);
	c->failed = -EINVAL;
	c->err_line = line;
}

static void header_line(struct doc_ctx *c)
{
	struct dut_ini_header h = { .text = c->in.header, .len = c->in.header_len, .line = c->in.line, .name = "" };
	struct dut_ini_section *ns, *s;
	char *name;
	int r;

	r = c->ops->header(c->arg, &c->doc, &h);
	if (r == -EINVAL) {
		ctx_error(c, h.line, "%s", h.why);
		return;
	}
	if (r < 0) {
		c->failed = r;
		return;
	}
	name = strndup(h.name ? h.name : "", h.name ? h.name_len : 0);
	if (!name) {
		c->failed = -ENOMEM;
		return;
	}
	ns = realloc(c->doc.sec, (c->doc.nsec + 1) * sizeof(*ns));
	if (!ns) {
		free(name);
		c->failed = -ENOMEM;
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

	if (c->failed)
		return NULL;
	switch (dut_ini_lines_next(&c->in, str, num)) {
	case DUT_INI_TEXT:
		return str;
	case DUT_INI_HEADER:
		header_line(c);
		return c->failed ? NULL : str;
	case DUT_INI_ERROR:
		ctx_error(c, c->in.line, "%s", c->in.error);
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
	if (c->failed)
		return 1;
	if (!c->doc.nsec) {
		ctx_error(c, c->in.line, "expected %s before the first key, found \"%s\"", c->ops->headers, name);
		return 1;
	}
	s = &c->doc.sec[c->doc.nsec - 1];
	nkv = realloc(s->kv, (s->nkv + 1) * sizeof(*nkv));
	if (!nkv) {
		c->failed = -ENOMEM;
		return 1;
	}
	s->kv = nkv;
	nkv = &s->kv[s->nkv];
	nkv->key = strdup(name);
	nkv->value = strdup(value);
	nkv->line = c->in.line;
	s->nkv++;
	if (!nkv->key || !nkv->value)
		c->failed = -ENOMEM;
	return 1;
}

int dut_ini_doc_parse(const char *text, size_t len, const char *source, const struct dut_ini_doc_ops *ops,
		      void *arg, struct dut_ini_doc *ret, struct dut_error *err)
{
	struct doc_ctx c = { .source = source ? source : "<ini>", .ops = ops, .arg = arg, .err = err };
	int line;

	dut_ini_lines_init(&c.in, text, len, ops->indent_why);
	line = ini_parse_stream(reader, &c, handler, &c);
	c.doc.lines = c.in.line;
	if (line < 0) {
		c.failed = -ENOMEM;   /* inih could not allocate its line buffer */
	} else if (line > 0 && (!c.failed || (unsigned)line <= c.err_line)) {
		/* inih's own syntax error came first (or ours was a consequence of it) */
		c.failed = 0;
		ctx_error(&c, (unsigned)line, "expected \"key = value\", a [section] header or a comment");
	}
	if (c.failed == -ENOMEM)
		dut_error_set(err, "%s: out of memory while reading the %s", c.source, ops->what);
	else if (c.failed < 0 && c.failed != -EINVAL)
		dut_error_set(err, "%s:%u: %s", c.source, c.in.line, strerror(-c.failed));
	if (c.failed < 0) {
		dut_ini_doc_free(&c.doc);
		return c.failed;
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
