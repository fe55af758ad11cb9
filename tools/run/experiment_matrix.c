/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment file parser: the [matrix] section.  Each key is a dimension
 * (filesystem, view, shape, replica, tables-on, indexes-on, version,
 * block_size, wal_block_size, set.NAME) with comma-separated values, each value checked here; the
 * planner (experiment_plan.c) expands their product into configurations.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/run/experiment_build.h"

static bool exp_oom(struct exp_ctx *c)
{
	c->errs.failed = -ENOMEM;
	return false;
}

static bool matrix_value_ok(const char *v)
{
	size_t n = strlen(v);

	return n && n <= 128 && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=/-") == n;
}

static bool split_values(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, struct dut_dimension *d)
{
	for (const char *p = kv->value;;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		char *v, **nv;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		v = strndup(p, (size_t)(end - p));
		if (!v)
			return exp_oom(c);
		if (!matrix_value_ok(v)) {
			exp_error(c, kv->line, s, "%s: expected comma-separated values of letters, digits and _ . = / -, "
				  "found \"%s\" in \"%s\"", kv->key, v, kv->value);
			free(v);
			return false;
		}
		for (size_t i = 0; i < d->nvalues; i++) {
			if (strcmp(d->values[i], v) == 0) {
				exp_error(c, kv->line, s, "%s: duplicate value \"%s\"", kv->key, v);
				free(v);
				return false;
			}
		}
		nv = realloc(d->values, (d->nvalues + 1) * sizeof(*nv));
		if (!nv) {
			free(v);
			return exp_oom(c);
		}
		d->values = nv;
		d->values[d->nvalues++] = v;
		if (!comma)
			return true;
		p = comma + 1;
	}
}

static bool check_dim_values(struct exp_ctx *c, struct exp_section *s, struct exp_kv *kv, struct dut_dimension *d,
			     const struct dut_experiment *e)
{
	static const struct dut_param_spec tsp = { .kind = DUT_P_TABLESPACE };
	const char *fsn[80];
	char msg[300], sugg[96], list[120];
	size_t nfs = 0;

	for (size_t i = 0; i < e->nfilesystems && i < 79; i++)
		fsn[nfs++] = e->filesystems[i].name;
	fsn[nfs] = NULL;
	for (size_t i = 0; i < d->nvalues; i++) {
		const char *v = d->values[i];
		struct dut_param_value pv = { 0 };

		switch (d->kind) {
		case DUT_DIM_FILESYSTEM:
			if (dut_experiment_filesystem(e, v))
				break;
			exp_suggest(sugg, sizeof(sugg), fsn, nfs, v);
			exp_error(c, kv->line, s, "filesystem: expected a built-in filesystem (none, ext4-ordered, "
				  "ext4-writeback, ext4-journal, xfs, btrfs) or a [filesystem NAME], found \"%s\"%s", v, sugg);
			return false;
		case DUT_DIM_VIEW:
		case DUT_DIM_REPLICA: {
			const char *const *w = d->kind == DUT_DIM_VIEW ? exp_views : exp_replica_modes;

			if (exp_word_index(w, v) >= 0)
				break;
			exp_suggest(sugg, sizeof(sugg), w, 3, v);
			exp_error(c, kv->line, s, "%s: expected %s, found \"%s\"%s", kv->key,
				  exp_join_words(w, list, sizeof(list)), v, sugg);
			return false;
		}
		case DUT_DIM_TABLES_ON:
		case DUT_DIM_INDEXES_ON:
			if (exp_param_parse(&tsp, v, &pv, e, msg, sizeof(msg)) < 0) {
				exp_error(c, kv->line, s, "%s: %s", kv->key, msg);
				return false;
			}
			break;
		case DUT_DIM_SET:
			if (!dut_setting_value_ok(v)) {
				exp_error(c, kv->line, s, "%s: the value \"%s\" has a control character (a newline, "
					  "tab or other byte below 0x20): PostgreSQL setting values cannot have them",
					  kv->key, v);
				return false;
			}
			break;
		case DUT_DIM_VERSION: {
			unsigned major;

			if (!exp_pg_version_value(v, &major, msg, sizeof(msg))) {
				exp_error(c, kv->line, s, "version: %s", msg);
				return false;
			}
			break;
		}
		case DUT_DIM_BLOCK_SIZE:
		case DUT_DIM_WAL_BLOCK_SIZE: {
			unsigned kb;

			if (e->pg_bindir) {
				exp_error(c, kv->line, s, "%s: [postgres] bindir names a PostgreSQL installation, "
					  "which has the block size it was built with; drop bindir (dutlab pg build "
					  "makes the builds) or the %s dimension", kv->key, kv->key);
				return false;
			}
			if (!exp_pg_block_value(v, d->kind == DUT_DIM_WAL_BLOCK_SIZE, &kb, msg, sizeof(msg))) {
				exp_error(c, kv->line, s, "%s: %s", kv->key, msg);
				return false;
			}
			break;
		}
		case DUT_DIM_SHAPE:
			break;
		}
	}
	return true;
}

bool exp_build_matrix(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, const struct base_lines *b)
{
	/* in the order of enum dut_dim_kind */
	static const char *const dim_keys[] = { "filesystem", "view", "shape", "replica", "tables-on", "indexes-on",
						"version", "block_size", "wal_block_size", NULL };
	const unsigned base_line[] = { b->filesystem, b->view, b->shape, b->replica, 0, 0, b->pg,
				       e->pg_block_line, e->pg_wal_block_line };
	uint64_t product = 1;

	if (s->nkv > 16) {
		exp_error(c, s->kv[16].line, s, "expected at most 16 matrix keys, found %zu", s->nkv);
		return false;
	}
	e->dims = calloc(s->nkv ? s->nkv : 1, sizeof(*e->dims));
	if (!e->dims)
		return exp_oom(c);
	for (size_t i = 0; i < s->nkv; i++) {
		struct exp_kv *kv = &s->kv[i];
		struct dut_dimension *d = &e->dims[e->ndims++];
		int k = exp_word_index(dim_keys, kv->key);

		d->line = kv->line;
		if (!exp_dup_to(c, &d->key, kv->key))
			return false;
		if (k >= 0) {
			d->kind = (enum dut_dim_kind)k;
			if (base_line[k] && k == DUT_DIM_VERSION) {
				exp_error(c, kv->line, s, "version: [postgres] %s at line %u already names the PostgreSQL "
					  "to use; give it in one place", e->pg_bindir ? "bindir" : "version", base_line[k]);
				return false;
			}
			if (base_line[k]) {
				exp_error(c, kv->line, s, "%s is also set at line %u; a [matrix] key replaces it, "
					  "so set it in one place", kv->key, base_line[k]);
				return false;
			}
		} else {
			const char *name = kv->key + 4;

			d->kind = DUT_DIM_SET;
			if (!dut_setting_name_ok(name)) {
				exp_error(c, kv->line, s, "expected set.NAME with a PostgreSQL setting name, found \"%s\"", kv->key);
				return false;
			}
			for (size_t j = 0; j < e->nsettings; j++) {
				if (strcmp(e->settings[j].name, name) == 0) {
					exp_error(c, kv->line, s, "%s: %s is also set at line %u; set it in one place",
						  kv->key, name, e->settings[j].line);
					return false;
				}
			}
			if (!exp_dup_to(c, &d->setting, name))
				return false;
		}
		if (!split_values(c, s, kv, d) || !check_dim_values(c, s, kv, d, e))
			return false;
		product *= d->nvalues;
		if (product > DUT_EXP_MAX_CONFIGS) {
			char dims[200] = "";
			size_t used = 0;

			for (size_t j = 0; j < e->ndims && used < sizeof(dims); j++) {
				int w = snprintf(dims + used, sizeof(dims) - used, "%s%zu %s", j ? " x " : "",
						 e->dims[j].nvalues, e->dims[j].key);

				used += w > 0 ? (size_t)w : 0;
			}
			exp_error(c, kv->line, s, "the matrix expands to more than %d configurations (%s%s); "
				  "expected at most %d: split the experiment", DUT_EXP_MAX_CONFIGS, dims,
				  i + 1 < s->nkv ? " x ..." : "", DUT_EXP_MAX_CONFIGS);
			return false;
		}
	}
	e->nconfigs = (size_t)product;
	return true;
}
