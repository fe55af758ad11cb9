/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment file parser, first half: the INI syntax.  libinih splits lines
 * into keys and values, but Debian builds it without INI_HANDLER_LINENO and
 * calls the handler only for keys; so inih reads through our line reader,
 * which counts lines, sees every [section] header (an empty section is still
 * a section, a repeated one an error) and rejects what inih would silently
 * reinterpret (an indented line continues the previous value).  Sections and
 * their keys are collected with their lines; experiment_build.c turns them
 * into the experiment once the whole file is read, so a key may name a
 * target or filesystem defined further down.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini_lines.h"
#include "tools/run/experiment_build.h"

static const bool section_named[S_COUNT] = {
	[S_TARGET] = true, [S_FILESYSTEM] = true, [S_TABLESPACE] = true, [S_STEP] = true,
};

static void trim(const char **p, const char **end)
{
	while (*p < *end && (**p == ' ' || **p == '\t'))
		(*p)++;
	while (*end > *p && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

static struct exp_section *add_section(struct exp_ctx *c, enum exp_section_kind k, const char *name, size_t n)
{
	struct exp_section *ns = realloc(c->sec, (c->nsec + 1) * sizeof(*ns)), *s;

	if (!ns) {
		c->failed = -ENOMEM;
		return NULL;
	}
	c->sec = ns;
	s = &c->sec[c->nsec++];
	memset(s, 0, sizeof(*s));
	s->kind = k;
	memcpy(s->name, name, n);
	s->line = c->line;
	return s;
}

/* A "[kind]" or "[kind name]" line, leading white space skipped, no newline. */
static void header_line(struct exp_ctx *c, const char *l, size_t n)
{
	const char *close = memchr(l, ']', n), *p, *q, *end, *nm;
	char kind[32], sugg[96] = "";
	size_t klen, nlen;
	int k;

	if (!close) {
		exp_error(c, c->line, NULL, "expected \"]\" to close the section header, found \"%.*s\"", (int)n, l);
		return;
	}
	for (p = close + 1; p < l + n && (*p == ' ' || *p == '\t' || *p == '\r'); p++)
		;
	if (p < l + n && *p != ';' && *p != '#') {
		exp_error(c, c->line, NULL, "expected nothing after the section header, found \"%.*s\"",
			  (int)(l + n - p), p);
		return;
	}
	p = l + 1;
	end = close;
	trim(&p, &end);
	for (q = p; q < end && *q != ' ' && *q != '\t'; q++)
		;
	klen = (size_t)(q - p);
	snprintf(kind, sizeof(kind), "%.*s", (int)(klen < 31 ? klen : 31), p);
	k = exp_word_index(exp_section_names, kind);
	if (k < 0 || klen >= sizeof(kind)) {
		exp_suggest(sugg, sizeof(sugg), exp_section_names, S_COUNT, kind);
		exp_error(c, c->line, NULL, "unknown section \"[%.*s]\"%s; expected [experiment], [target NAME], "
			  "[filesystem NAME], [dutfs], [postgres], [tablespace NAME], [replica], [matrix] or [step NAME]",
			  (int)(end - p), p, sugg);
		return;
	}
	nm = q;
	while (nm < end && (*nm == ' ' || *nm == '\t'))
		nm++;
	nlen = (size_t)(end - nm);
	if (!section_named[k] && nlen) {
		exp_error(c, c->line, NULL, "expected [%s] without a name, found \"[%.*s]\"", kind, (int)(end - p), p);
		return;
	}
	if (section_named[k] && !exp_name_ok(nm, nlen)) {
		exp_error(c, c->line, NULL, "expected a name after \"[%s\" (1 to %d letters, digits, '_', '-', '.'), found \"%.*s\"",
			  kind, DUT_EXP_NAME_MAX, (int)nlen, nm);
		return;
	}
	for (size_t i = 0; i < c->nsec; i++) {
		const struct exp_section *o = &c->sec[i];

		if ((int)o->kind != k || strlen(o->name) != nlen || memcmp(o->name, nm, nlen) != 0)
			continue;
		if (nlen)
			exp_error(c, c->line, NULL, "duplicate name: [%s %s] is already defined at line %u", kind, o->name, o->line);
		else
			exp_error(c, c->line, NULL, "duplicate section: [%s] is already at line %u (write its keys in one place)",
				  kind, o->line);
		return;
	}
	add_section(c, (enum exp_section_kind)k, nm, nlen);
}

/*
 * What inih reads from: lib/ini_lines does the line checks.  exp_ctx keeps
 * the number of the line last handed to inih for the handler and the
 * builder; its text/len/pos are the cursor's input.
 */
struct exp_stream {
	struct exp_ctx *c;
	struct dut_ini_lines in;
};

/* ini_reader: one line per call, like fgets. */
static char *reader(char *str, int num, void *stream)
{
	struct exp_stream *st = stream;
	struct exp_ctx *c = st->c;
	enum dut_ini_line kind;

	if (c->failed)
		return NULL;
	kind = dut_ini_lines_next(&st->in, str, num);
	c->line = st->in.line;
	c->pos = st->in.pos;
	switch (kind) {
	case DUT_INI_TEXT:
		return str;
	case DUT_INI_HEADER:
		header_line(c, st->in.header, st->in.header_len);
		return c->failed ? NULL : str;
	case DUT_INI_ERROR:
		exp_error(c, c->line, NULL, "%s", st->in.error);
		return NULL;
	case DUT_INI_END:
		break;
	}
	return NULL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct exp_ctx *c = user;
	struct exp_section *s;
	struct exp_kv *nkv;

	(void)section;
	if (c->failed)
		return 1;
	if (!c->nsec) {
		exp_error(c, c->line, NULL, "expected a section header such as [experiment] or [target NAME] "
			  "before the first key, found \"%s\"", name);
		return 1;
	}
	s = &c->sec[c->nsec - 1];
	nkv = realloc(s->kv, (s->nkv + 1) * sizeof(*nkv));
	if (!nkv) {
		c->failed = -ENOMEM;
		return 1;
	}
	s->kv = nkv;
	nkv = &s->kv[s->nkv];
	nkv->key = strdup(name);
	nkv->value = strdup(value);
	nkv->line = c->line;
	nkv->used = false;
	s->nkv++;
	if (!nkv->key || !nkv->value)
		c->failed = -ENOMEM;
	return 1;
}

static void ctx_free(struct exp_ctx *c)
{
	for (size_t i = 0; i < c->nsec; i++) {
		for (size_t j = 0; j < c->sec[i].nkv; j++) {
			free(c->sec[i].kv[j].key);
			free(c->sec[i].kv[j].value);
		}
		free(c->sec[i].kv);
	}
	free(c->sec);
}

static char *dir_of(const char *filename)
{
	const char *slash = strrchr(filename, '/');

	if (!slash)
		return strdup(".");
	if (slash == filename)
		return strdup("/");
	return strndup(filename, (size_t)(slash - filename));
}

int dut_experiment_parse(const char *text, size_t len, const char *filename,
			 struct dut_experiment **ret, struct dut_error *err)
{
	struct exp_ctx c = { .source = filename ? filename : "<experiment>", .text = text, .len = len, .err = err };
	struct exp_stream st = { .c = &c };
	struct dut_experiment *e;
	int line, r;

	if (len > DUT_EXP_MAX_BYTES) {
		dut_error_set(err, "%s: expected at most %u bytes of experiment, found %zu", c.source,
			      DUT_EXP_MAX_BYTES, len);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->source = strdup(c.source);
	e->base_dir = dir_of(c.source);
	if (!e->source || !e->base_dir) {
		dut_experiment_free(e);
		return -ENOMEM;
	}
	dut_ini_lines_init(&st.in, c.text, c.len, "an indented line would continue the previous value");
	line = ini_parse_stream(reader, &st, handler, &c);
	if (line < 0) {
		r = -ENOMEM;
	} else if (line > 0 && (!c.failed || (unsigned)line <= c.err_line)) {
		c.failed = 0;
		exp_error(&c, (unsigned)line, NULL, "expected \"key = value\", a [section] header or a comment");
		r = -EINVAL;
	} else if (c.failed) {
		r = c.failed;
	} else {
		r = exp_build(&c, e);
	}
	ctx_free(&c);
	if (r < 0) {
		if (r == -ENOMEM)
			dut_error_set(err, "%s: out of memory while reading the experiment", c.source);
		dut_experiment_free(e);
		return r;
	}
	*ret = e;
	return 0;
}
