/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment file parser, first half: the INI syntax.  lib/ini_doc reads
 * the text (through libinih and lib/ini_lines: line numbers, every
 * [section] header, indented lines refused) into sections of keys with
 * their lines.  What is ours: which headers are sections (an empty section
 * is still a section, a repeated one an error), and handing the sections to
 * experiment_build.c as exp_sections; it builds the experiment once the
 * whole file is read, so a key may name a target or filesystem defined
 * further down.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ini_doc.h"
#include "tools/run/experiment_build.h"

static const bool section_named[S_COUNT] = {
	[S_TARGET] = true, [S_FILESYSTEM] = true, [S_TABLESPACE] = true, [S_STEP] = true,
};

/* lib/ini_doc's header callback: "[kind]" or "[kind name]", leading white space refused, no newline. */
static int header_line(void *arg, const struct dut_ini_doc *doc, struct dut_ini_header *h)
{
	struct dut_ini_header_words w;
	const struct dut_ini_section *o;
	char kind[32], sugg[96] = "";
	int k, r;

	(void)arg;
	if ((r = dut_ini_header_words(h, &w)) < 0)
		return r;
	snprintf(kind, sizeof(kind), "%.*s", (int)(w.kind_len < 31 ? w.kind_len : 31), w.kind);
	k = dut_ini_word_index(exp_section_names, S_COUNT, w.kind, w.kind_len);
	if (k < 0) {
		exp_suggest(sugg, sizeof(sugg), exp_section_names, S_COUNT, kind);
		return dut_ini_refuse(h, "unknown section \"[%.*s]\"%s; expected [experiment], [target NAME], "
				      "[filesystem NAME], [dutfs], [postgres], [tablespace NAME], [replica], [matrix] or [step NAME]",
				      (int)w.inner_len, w.inner, sugg);
	}
	if (!section_named[k] && w.name_len)
		return dut_ini_refuse(h, "expected [%s] without a name, found \"[%.*s]\"", kind, (int)w.inner_len, w.inner);
	if (section_named[k] && (r = dut_ini_header_name(h, kind, w.name, w.name_len, DUT_EXP_NAME_MAX)) < 0)
		return r;
	if ((o = dut_ini_doc_find(doc, k, w.name, w.name_len))) {
		if (w.name_len)
			return dut_ini_refuse(h, "duplicate name: [%s %s] is already defined at line %u", kind, o->name, o->line);
		return dut_ini_refuse(h, "duplicate section: [%s] is already at line %u (write its keys in one place)",
				      kind, o->line);
	}
	h->kind = k;
	h->name = w.name;
	h->name_len = w.name_len;
	return 0;
}

static const struct dut_ini_doc_ops experiment_ini = {
	.what = "experiment",
	.headers = "a section header such as [experiment] or [target NAME]",
	.indent_why = "an indented line would continue the previous value",
	.header = header_line,
};

/*
 * The doc's sections as experiment_build.c's exp_sections: the key and
 * value strings move over (doc keeps NULLs), names fit (header_line checked
 * them against DUT_EXP_NAME_MAX).
 */
static int take_sections(struct exp_ctx *c, struct dut_ini_doc *doc)
{
	c->sec = calloc(doc->nsec ? doc->nsec : 1, sizeof(*c->sec));
	if (!c->sec)
		return -ENOMEM;
	for (size_t i = 0; i < doc->nsec; i++) {
		struct dut_ini_section *d = &doc->sec[i];
		struct exp_section *s = &c->sec[c->nsec];

		s->kind = (enum exp_section_kind)d->kind;
		snprintf(s->name, sizeof(s->name), "%s", d->name);
		s->line = d->line;
		s->kv = calloc(d->nkv ? d->nkv : 1, sizeof(*s->kv));
		if (!s->kv)
			return -ENOMEM;
		c->nsec++;
		for (size_t j = 0; j < d->nkv; j++) {
			s->kv[j] = (struct exp_kv){ .key = d->kv[j].key, .value = d->kv[j].value, .line = d->kv[j].line };
			d->kv[j].key = d->kv[j].value = NULL;
		}
		s->nkv = d->nkv;
	}
	c->line = doc->lines;
	return 0;
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
	struct exp_ctx c = { .errs = { .source = filename ? filename : "<experiment>", .err = err } };
	struct dut_ini_doc doc = { 0 };
	struct dut_experiment *e;
	int r;

	if (len > DUT_EXP_MAX_BYTES) {
		dut_error_set(err, "%s: expected at most %u bytes of experiment, found %zu", c.errs.source,
			      DUT_EXP_MAX_BYTES, len);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->source = strdup(c.errs.source);
	e->base_dir = dir_of(c.errs.source);
	if (!e->source || !e->base_dir) {
		dut_experiment_free(e);
		return -ENOMEM;
	}
	r = dut_ini_doc_parse(text, len, c.errs.source, &experiment_ini, NULL, &doc, err);
	if (r == 0) {
		r = take_sections(&c, &doc);
		dut_ini_doc_free(&doc);
		if (r == 0)
			r = exp_build(&c, e);
		if (r == -ENOMEM)
			dut_error_set(err, "%s: out of memory while reading the experiment", c.errs.source);
	}
	ctx_free(&c);
	if (r < 0) {
		dut_experiment_free(e);
		return r;
	}
	*ret = e;
	return 0;
}
