/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/script.h"

static void draw_tpcb(struct pgl_rng *rng, int64_t scale, int64_t v[PGL_NVARS])
{
	v[PGL_VAR_AID] = pgl_rng_range(rng, 1, PGL_ACCOUNTS_PER_SCALE * scale);
	v[PGL_VAR_BID] = pgl_rng_range(rng, 1, PGL_BRANCHES_PER_SCALE * scale);
	v[PGL_VAR_TID] = pgl_rng_range(rng, 1, PGL_TELLERS_PER_SCALE * scale);
	v[PGL_VAR_DELTA] = pgl_rng_range(rng, -5000, 5000);
}

static void draw_select(struct pgl_rng *rng, int64_t scale, int64_t v[PGL_NVARS])
{
	v[PGL_VAR_AID] = pgl_rng_range(rng, 1, PGL_ACCOUNTS_PER_SCALE * scale);
	v[PGL_VAR_BID] = v[PGL_VAR_TID] = v[PGL_VAR_DELTA] = 0;
}

#define STMT0(s) { .sql = (s), .nparams = 0 }
#define UPD_ACCOUNTS { .sql = "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", \
		.nparams = 2, .params = { PGL_VAR_DELTA, PGL_VAR_AID } }
#define SEL_ACCOUNT { .sql = "SELECT abalance FROM pgbench_accounts WHERE aid = $1", \
		.nparams = 1, .params = { PGL_VAR_AID } }
#define INS_HISTORY { .sql = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) " \
		"VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", .nparams = 4, \
		.params = { PGL_VAR_TID, PGL_VAR_BID, PGL_VAR_AID, PGL_VAR_DELTA } }

static const struct pgl_script script_tpcb = {
	.name = "tpcb-like",
	.description = "<builtin: TPC-B (sort of)>",
	.nstmts = 7,
	.stmts = {
		STMT0("BEGIN"),
		UPD_ACCOUNTS,
		SEL_ACCOUNT,
		{ .sql = "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
		  .nparams = 2, .params = { PGL_VAR_DELTA, PGL_VAR_TID } },
		{ .sql = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
		  .nparams = 2, .params = { PGL_VAR_DELTA, PGL_VAR_BID } },
		INS_HISTORY,
		STMT0("END"),
	},
	.draw = draw_tpcb,
};

static const struct pgl_script script_simple_update = {
	.name = "simple-update",
	.description = "<builtin: simple update>",
	.nstmts = 5,
	.stmts = {
		STMT0("BEGIN"),
		UPD_ACCOUNTS,
		SEL_ACCOUNT,
		INS_HISTORY,
		STMT0("END"),
	},
	.draw = draw_tpcb,
};

static const struct pgl_script script_select_only = {
	.name = "select-only",
	.description = "<builtin: select only>",
	.nstmts = 1,
	.stmts = { SEL_ACCOUNT },
	.draw = draw_select,
};

const struct pgl_script *const pgl_builtin_scripts[] = {
	&script_tpcb,
	&script_simple_update,
	&script_select_only,
};
const size_t pgl_builtin_script_count =
	sizeof(pgl_builtin_scripts) / sizeof(pgl_builtin_scripts[0]);

int pgl_script_find(const char *name, const struct pgl_script **ret, struct dut_error *err)
{
	const struct pgl_script *found = NULL;
	size_t len = strlen(name);
	unsigned matches = 0;

	if (len == 0) {
		dut_error_set(err, "empty script name (expected tpcb-like, simple-update or select-only)");
		return -EINVAL;
	}
	for (size_t i = 0; i < pgl_builtin_script_count; i++) {
		const struct pgl_script *s = pgl_builtin_scripts[i];

		if (strcmp(s->name, name) == 0) {
			*ret = s;
			return 0;
		}
		if (strncmp(s->name, name, len) == 0) {
			found = s;
			matches++;
		}
	}
	if (matches == 1) {
		*ret = found;
		return 0;
	}
	if (matches > 1) {
		dut_error_set(err, "ambiguous script name \"%s\" (expected tpcb-like, simple-update or select-only)", name);
		return -EINVAL;
	}
	dut_error_set(err, "unknown script \"%s\" (expected tpcb-like, simple-update or select-only)", name);
	return -ENOENT;
}

void pgl_mix_init(struct pgl_mix *m)
{
	memset(m, 0, sizeof(*m));
}

int pgl_mix_add(struct pgl_mix *m, const char *spec, struct dut_error *err)
{
	char name[64];
	const char *at = strrchr(spec, '@');
	size_t nlen = at ? (size_t)(at - spec) : strlen(spec);
	unsigned long w = 1;
	const struct pgl_script *s;
	int r;

	if (nlen >= sizeof(name)) {
		dut_error_set(err, "script name \"%.*s\" is too long", (int)nlen, spec);
		return -EINVAL;
	}
	memcpy(name, spec, nlen);
	name[nlen] = '\0';
	if (at) {
		char *end;

		errno = 0;
		if (at[1] < '0' || at[1] > '9') {
			dut_error_set(err, "bad weight in \"%s\": expected NAME@WEIGHT with WEIGHT a whole number 0..1000000", spec);
			return -EINVAL;
		}
		w = strtoul(at + 1, &end, 10);
		if (errno || *end || w > 1000000) {
			dut_error_set(err, "bad weight in \"%s\": expected NAME@WEIGHT with WEIGHT a whole number 0..1000000", spec);
			return -EINVAL;
		}
	}
	r = pgl_script_find(name, &s, err);
	if (r < 0)
		return r;
	if (m->n >= PGL_MAX_MIX) {
		dut_error_set(err, "too many scripts (at most %d -b options)", PGL_MAX_MIX);
		return -E2BIG;
	}
	m->e[m->n].script = s;
	m->e[m->n].weight = (uint32_t)w;
	m->n++;
	m->total_weight += w;
	return 0;
}

int pgl_mix_validate(const struct pgl_mix *m, struct dut_error *err)
{
	if (m->n == 0) {
		dut_error_set(err, "no script given");
		return -EINVAL;
	}
	if (m->total_weight == 0) {
		dut_error_set(err, "the script weights sum to zero: give at least one script a positive weight");
		return -EINVAL;
	}
	return 0;
}

unsigned pgl_mix_choose(const struct pgl_mix *m, uint64_t u)
{
	uint64_t acc = 0;

	for (unsigned i = 0; i < m->n; i++) {
		acc += m->e[i].weight;
		if (u < acc)
			return i;
	}
	return m->n - 1;
}

unsigned pgl_i64_to_text(int64_t v, char *buf)
{
	char tmp[24];
	unsigned n = 0, len = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

int pgl_stmt_render(const struct pgl_stmt *st, const int64_t vars[PGL_NVARS], char *buf,
		    size_t len)
{
	size_t o = 0;

	if (len == 0)
		return -ENOSPC;
	for (const char *p = st->sql; *p; p++) {
		char num[24];
		const char *src = p;
		size_t n = 1;

		if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
			unsigned idx = (unsigned)(p[1] - '1');

			if (idx < st->nparams) {
				n = pgl_i64_to_text(vars[st->params[idx]], num);
				src = num;
				p++;
			}
		}
		if (o + n >= len) {
			buf[o] = '\0';
			return -ENOSPC;
		}
		memcpy(buf + o, src, n);
		o += n;
	}
	buf[o] = '\0';
	return (int)o;
}
