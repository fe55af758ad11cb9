/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rules file parser.  lib/ini_doc reads the INI text (through libinih and
 * lib/ini_lines) into sections of keys with their lines; what is ours is
 * the header callback that says which "[kind name]" lines are sections,
 * and the building: models, faults and then rules, once the whole file is
 * read, so a rule may name a model defined below it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/rules.h"
#include "lib/cleanup.h"
#include "lib/ini_doc.h"

enum section_kind { SEC_MODEL, SEC_FAULT, SEC_RULE };
static const char *const kind_names[] = { "model", "fault", "rule" };

/* The doc's sections: kind is an enum section_kind, name 1..SHAPE_NAME_MAX bytes. */
struct pctx {
	struct dut_ini_doc doc;
	struct dut_ini_errors errs;
};

static void ctx_error(struct pctx *c, unsigned line, const struct dut_ini_section *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void ctx_error(struct pctx *c, unsigned line, const struct dut_ini_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dut_ini_verror(&c->errs, line, s ? kind_names[s->kind] : NULL, s ? s->name : NULL, fmt, ap);
	va_end(ap);
}

/* lib/ini_doc's header callback: a "[kind name]" line (leading white space already refused). */
static int header_line(void *arg, const struct dut_ini_doc *doc, struct dut_ini_header *h)
{
	struct dut_ini_header_words w;
	const struct dut_ini_section *o;
	int k, r;

	(void)arg;
	if ((r = dut_ini_header_words(h, &w)) < 0)
		return r;
	k = dut_ini_word_index(kind_names, DUT_ARRAY_SIZE(kind_names), w.kind, w.kind_len);
	if (k < 0)
		return dut_ini_refuse(h, "expected a section [model NAME], [fault NAME] or [rule NAME], found \"[%.*s]\"",
				      (int)w.inner_len, w.inner);
	if ((r = dut_ini_header_name(h, kind_names[k], w.name, w.name_len, SHAPE_NAME_MAX)) < 0)
		return r;
	if ((o = dut_ini_doc_find(doc, k, w.name, w.name_len)))
		return dut_ini_refuse(h, "%s \"%s\" is already defined at line %u", kind_names[k], o->name, o->line);
	h->kind = k;
	h->name = w.name;
	h->name_len = w.name_len;
	return 0;
}

static const struct dut_ini_doc_ops rules_ini = {
	.what = "rules",
	.headers = "a [model NAME], [fault NAME] or [rule NAME] header",
	.indent_why = "inih would read an indented line as the continuation of the previous value",
	.header = header_line,
};

/* ---- building ---- */

static int build_model(struct pctx *c, struct dut_ini_section *s, struct shape_rules *rs)
{
	const struct shape_model_ops *ops = NULL;
	_cleanup_free_ void *params = NULL;
	struct dut_error e;
	uint64_t seen = 0;
	struct shape_model *m, **nm;
	int r;

	for (size_t i = 0; i < s->nkv; i++) {
		if (strcmp(s->kv[i].key, "type") != 0)
			continue;
		if (ops) {
			ctx_error(c, s->kv[i].line, s, "type is set twice");
			return -EINVAL;
		}
		ops = shape_model_ops_find(s->kv[i].value);
		if (!ops) {
			ctx_error(c, s->kv[i].line, s, "type: expected a model type (%s), found \"%s\"",
				  shape_model_types(), s->kv[i].value);
			return -EINVAL;
		}
	}
	if (!ops) {
		ctx_error(c, s->line, s, "missing key type (%s)", shape_model_types());
		return -EINVAL;
	}
	params = shape_model_params_new(ops);
	if (!params)
		return -ENOMEM;
	for (size_t i = 0; i < s->nkv; i++) {
		if (strcmp(s->kv[i].key, "type") == 0)
			continue;
		if (shape_model_param_set(ops, params, &seen, s->kv[i].key, s->kv[i].value, &e) < 0) {
			ctx_error(c, s->kv[i].line, s, "%s", e.msg);
			return -EINVAL;
		}
	}
	if (shape_model_params_finish(ops, params, seen, &e) < 0) {
		ctx_error(c, s->line, s, "%s", e.msg);
		return -EINVAL;
	}
	nm = realloc(rs->models, (rs->nmodels + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	rs->models = nm;
	r = shape_model_new(s->name, s->line, ops, params, &m);
	if (r < 0)
		return r;
	params = NULL;   /* owned by m */
	rs->models[rs->nmodels++] = m;
	return 0;
}

static int build_fault(struct pctx *c, struct dut_ini_section *s, struct shape_rules *rs)
{
	struct shape_fault_params p;
	struct dut_error e;
	struct shape_fault *f, **nf;
	int r;

	shape_fault_params_init(&p);
	for (size_t i = 0; i < s->nkv; i++) {
		for (size_t k = 0; k < i; k++) {
			if (strcmp(s->kv[k].key, s->kv[i].key) == 0) {
				ctx_error(c, s->kv[i].line, s, "%s is set twice (first at line %u)", s->kv[i].key, s->kv[k].line);
				return -EINVAL;
			}
		}
		if (shape_fault_param_set(&p, s->kv[i].key, s->kv[i].value, &e) < 0) {
			ctx_error(c, s->kv[i].line, s, "%s", e.msg);
			return -EINVAL;
		}
	}
	if (shape_fault_params_check(&p, &e) < 0) {
		ctx_error(c, s->line, s, "%s", e.msg);
		return -EINVAL;
	}
	nf = realloc(rs->faults, (rs->nfaults + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	rs->faults = nf;
	r = shape_fault_new(s->name, s->line, &p, &f);
	if (r < 0)
		return r;
	rs->faults[rs->nfaults++] = f;
	return 0;
}

/* Split a comma/space list; calls fn per item; stops at the first error. */
static int each_item(const char *value, int (*fn)(const char *item, void *arg), void *arg)
{
	char buf[512], *save = NULL, *tok;
	int n = 0, r;

	if (strlen(value) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, value);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		r = fn(tok, arg);
		if (r < 0)
			return r;
		n++;
	}
	return n;
}

struct item_ctx {
	uint32_t mask;
	const char *bad;
	char badbuf[80];
};

static int class_item(const char *item, void *arg)
{
	struct item_ctx *ic = arg;
	enum shape_class cls;

	if (shape_class_from_name(item, &cls) < 0) {
		snprintf(ic->badbuf, sizeof(ic->badbuf), "%s", item);
		return -EINVAL;
	}
	ic->mask |= 1u << cls;
	return 0;
}

static int op_item(const char *item, void *arg)
{
	struct item_ctx *ic = arg;
	enum shape_op op;

	if (strcmp(item, "all") == 0)
		ic->mask |= SHAPE_OP_ALL;
	else if (strcmp(item, "data") == 0)
		ic->mask |= 1u << SHAPE_OP_READ | 1u << SHAPE_OP_WRITE;
	else if (strcmp(item, "sync") == 0)
		ic->mask |= 1u << SHAPE_OP_FSYNC | 1u << SHAPE_OP_FDATASYNC;
	else if (shape_op_from_name(item, &op) == 0)
		ic->mask |= 1u << op;
	else {
		snprintf(ic->badbuf, sizeof(ic->badbuf), "%s", item);
		return -EINVAL;
	}
	return 0;
}

/* Why a glob can never match a path as dutfs gives it (relative, normalised), or NULL. */
static const char *glob_never_matches(const char *g)
{
	size_t n = strlen(g);

	if (n == 0)
		return "an empty glob matches no path";
	if (g[0] == '/')
		return "paths are relative to the mount root (\"pg_wal/...\"), so a glob starting with '/' matches nothing";
	if (g[n - 1] == '/')
		return "a glob ending in '/' names a directory; rules match files (add '*')";
	if (strstr(g, "//"))
		return "paths never contain \"//\"";
	if (strcmp(g, ".") == 0 || strcmp(g, "..") == 0 || strncmp(g, "./", 2) == 0 ||
	    strncmp(g, "../", 3) == 0 || strstr(g, "/./") || strstr(g, "/../") ||
	    (n >= 2 && strcmp(g + n - 2, "/.") == 0) || (n >= 3 && strcmp(g + n - 3, "/..") == 0))
		return "paths are normalised: they never contain \".\" or \"..\" components";
	return NULL;
}

struct fault_ctx {
	struct shape_rules *rs;
	struct shape_rule *rule;
	char bad[SHAPE_NAME_MAX + 16];
	int why;   /* 1 unknown, 2 too many, 3 twice */
};

static int fault_item(const char *item, void *arg)
{
	struct fault_ctx *fc = arg;
	struct shape_fault *f = shape_rules_fault(fc->rs, item);

	snprintf(fc->bad, sizeof(fc->bad), "%s", item);
	if (!f) {
		fc->why = 1;
		return -EINVAL;
	}
	if (fc->rule->nfaults == SHAPE_RULE_FAULTS_MAX) {
		fc->why = 2;
		return -EINVAL;
	}
	for (unsigned i = 0; i < fc->rule->nfaults; i++) {
		if (fc->rule->faults[i] == f) {
			fc->why = 3;
			return -EINVAL;
		}
	}
	fc->rule->faults[fc->rule->nfaults++] = f;
	return 0;
}

static void list_names(char *buf, size_t len, struct shape_rules *rs, bool models)
{
	size_t used = 0;
	unsigned n = models ? rs->nmodels : rs->nfaults;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 models ? rs->models[i]->name : rs->faults[i]->name);
	if (n == 0)
		snprintf(buf, len, "none");
}

static int rule_key(struct pctx *c, struct dut_ini_section *s, struct dut_ini_kv *kv, struct shape_rules *rs,
		    struct shape_rule *rule)
{
	struct item_ctx ic = { 0 };
	char names[200];
	const char *why;
	int n;

	if (strcmp(kv->key, "class") == 0 || strcmp(kv->key, "op") == 0) {
		bool cls = kv->key[0] == 'c';

		n = each_item(kv->value, cls ? class_item : op_item, &ic);
		if (n <= 0) {
			ctx_error(c, kv->line, s, "%s: expected %s, found \"%s\"", kv->key,
				  cls ? "classes from heap, index, toast, fsm, vm, wal, slru, temp, other"
				      : "operations from read, write, fsync, fdatasync, open, create, release, flush, "
					"truncate, fallocate, punch, unlink, rename, data, sync, all",
				  n == 0 ? kv->value : ic.badbuf);
			return -EINVAL;
		}
		if (cls)
			rule->class_mask = ic.mask;
		else
			rule->op_mask = ic.mask;
		return 0;
	}
	if (strcmp(kv->key, "path") == 0) {
		why = glob_never_matches(kv->value);
		if (why) {
			ctx_error(c, kv->line, s, "path: expected a glob that can match a file, found \"%s\": %s", kv->value, why);
			return -EINVAL;
		}
		rule->glob = strdup(kv->value);
		return rule->glob ? 0 : -ENOMEM;
	}
	if (strcmp(kv->key, "model") == 0) {
		rule->model = shape_rules_model(rs, kv->value);
		if (!rule->model) {
			list_names(names, sizeof(names), rs, true);
			ctx_error(c, kv->line, s, "model: expected the name of a [model] section (defined: %s), found \"%s\"",
				  names, kv->value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(kv->key, "fault") == 0) {
		struct fault_ctx fc = { .rs = rs, .rule = rule };

		n = each_item(kv->value, fault_item, &fc);
		if (n == 0) {
			ctx_error(c, kv->line, s, "fault: expected fault names, found \"%s\"", kv->value);
			return -EINVAL;
		}
		if (n < 0) {
			list_names(names, sizeof(names), rs, false);
			if (fc.why == 1)
				ctx_error(c, kv->line, s, "fault: expected the name of a [fault] section (defined: %s), found \"%s\"",
					  names, fc.bad);
			else if (fc.why == 2)
				ctx_error(c, kv->line, s, "fault: expected at most %d faults per rule", SHAPE_RULE_FAULTS_MAX);
			else
				ctx_error(c, kv->line, s, "fault: \"%s\" is named twice", fc.bad);
			return -EINVAL;
		}
		return 0;
	}
	ctx_error(c, kv->line, s, "unknown key \"%s\" in a rule (expected one of: class, path, op, model, fault)", kv->key);
	return -EINVAL;
}

static int build_rule(struct pctx *c, struct dut_ini_section *s, struct shape_rules *rs,
		      struct shape_rule *rule)
{
	int r;

	rule->name = strdup(s->name);
	if (!rule->name)
		return -ENOMEM;
	rule->line = s->line;
	rule->class_mask = SHAPE_CLASS_ALL;
	rule->op_mask = SHAPE_OP_ALL;
	for (size_t i = 0; i < s->nkv; i++) {
		for (size_t k = 0; k < i; k++) {
			if (strcmp(s->kv[k].key, s->kv[i].key) == 0) {
				ctx_error(c, s->kv[i].line, s, "%s is set twice (first at line %u)", s->kv[i].key, s->kv[k].line);
				return -EINVAL;
			}
		}
		r = rule_key(c, s, &s->kv[i], rs, rule);
		if (r < 0)
			return r;
	}
	if (!rule->model && !rule->nfaults) {
		ctx_error(c, s->line, s, "missing key model or fault: a rule must name a model, a fault or both");
		return -EINVAL;
	}
	return 0;
}

static int build(struct pctx *c, struct shape_rules *rs)
{
	unsigned nrules = 0;
	int r;

	for (size_t i = 0; i < c->doc.nsec; i++) {
		struct dut_ini_section *s = &c->doc.sec[i];

		r = s->kind == SEC_MODEL ? build_model(c, s, rs) :
		    s->kind == SEC_FAULT ? build_fault(c, s, rs) : 0;
		if (r < 0)
			return c->errs.failed ? c->errs.failed : r;
		nrules += s->kind == SEC_RULE;
	}
	if (!nrules) {
		ctx_error(c, c->doc.lines, NULL, "expected at least one [rule NAME] section, found none: nothing would be shaped");
		return -EINVAL;
	}
	rs->rules = calloc(nrules, sizeof(*rs->rules));
	if (!rs->rules)
		return -ENOMEM;
	for (size_t i = 0; i < c->doc.nsec; i++) {
		if (c->doc.sec[i].kind != SEC_RULE)
			continue;
		r = build_rule(c, &c->doc.sec[i], rs, &rs->rules[rs->nrules++]);
		if (r < 0)
			return c->errs.failed ? c->errs.failed : r;
	}
	return 0;
}

int shape_rules_parse(const char *text, size_t len, const char *source,
		      struct shape_rules **ret, struct dut_error *err)
{
	struct pctx c = { .errs = { .source = source ? source : "<rules>", .err = err } };
	struct shape_rules *rs;
	int r;

	rs = calloc(1, sizeof(*rs));
	if (!rs || !(rs->source = strdup(c.errs.source))) {
		free(rs);
		return -ENOMEM;
	}
	r = dut_ini_doc_parse(text, len, c.errs.source, &rules_ini, NULL, &c.doc, err);
	if (r == 0) {
		r = build(&c, rs);
		dut_ini_doc_free(&c.doc);
		if (r == -ENOMEM)
			dut_error_set(err, "%s: out of memory while reading the rules", c.errs.source);
	}
	if (r < 0) {
		shape_rules_free(rs);
		return r;
	}
	*ret = rs;
	return 0;
}

void shape_rules_free(struct shape_rules *rs)
{
	if (!rs)
		return;
	for (unsigned i = 0; i < rs->nrules; i++) {
		free(rs->rules[i].name);
		free(rs->rules[i].glob);
	}
	free(rs->rules);
	for (unsigned i = 0; i < rs->nmodels; i++)
		shape_model_free(rs->models[i]);
	free(rs->models);
	for (unsigned i = 0; i < rs->nfaults; i++)
		shape_fault_free(rs->faults[i]);
	free(rs->faults);
	free(rs->source);
	free(rs);
}

struct shape_model *shape_rules_model(const struct shape_rules *rs, const char *name)
{
	for (unsigned i = 0; i < rs->nmodels; i++) {
		if (strcmp(rs->models[i]->name, name) == 0)
			return rs->models[i];
	}
	return NULL;
}

struct shape_fault *shape_rules_fault(const struct shape_rules *rs, const char *name)
{
	for (unsigned i = 0; i < rs->nfaults; i++) {
		if (strcmp(rs->faults[i]->name, name) == 0)
			return rs->faults[i];
	}
	return NULL;
}

bool shape_rule_matches(const struct shape_rule *r, enum shape_class cls, const char *path,
			enum shape_op op)
{
	if ((unsigned)cls >= SHAPE_CLASS_COUNT || (unsigned)op >= SHAPE_OP_COUNT)
		return false;
	if (!(r->class_mask & (1u << cls)) || !(r->op_mask & (1u << op)))
		return false;
	/* no FNM_PATHNAME: '*' spans directories, so "base/?*" covers base/5/1259 */
	return !r->glob || (path && fnmatch(r->glob, path, 0) == 0);
}

struct shape_rule *shape_rules_match(struct shape_rules *rs, enum shape_class cls,
				     const char *path, enum shape_op op)
{
	for (unsigned i = 0; i < rs->nrules; i++) {
		if (shape_rule_matches(&rs->rules[i], cls, path, op))
			return &rs->rules[i];
	}
	return NULL;
}
