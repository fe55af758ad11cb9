/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built-in OLTP scripts (pgbench-compatible) and weighted script mixes.
 * Pure code: no libpq, no I/O.
 *
 * A script is an ops-table entry: a name, the statements of one transaction
 * (SQL with $n placeholders, and which transaction variable fills each $n),
 * and a function that draws the transaction's variables.  The runner sends
 * the statements one by one (or pipelined), with the protocol chosen by -M.
 *
 * Mix specs follow pgbench -b: "NAME[@WEIGHT]"; NAME may be any unambiguous
 * prefix of a built-in name ("tpcb" -> tpcb-like); WEIGHT is 0..1000000,
 * default 1.  A mix needs a positive total weight.
 */
#ifndef PGL_SCRIPT_H
#define PGL_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "pgload/rng.h"

/* Transaction variables, pgbench's :aid :bid :tid :delta. */
enum pgl_var { PGL_VAR_AID, PGL_VAR_BID, PGL_VAR_TID, PGL_VAR_DELTA, PGL_NVARS };

#define PGL_MAX_PARAMS 5
#define PGL_MAX_STMTS 8
#define PGL_MAX_MIX 16

/* pgbench's data sizes per scale unit. */
#define PGL_ACCOUNTS_PER_SCALE 100000
#define PGL_TELLERS_PER_SCALE 10
#define PGL_BRANCHES_PER_SCALE 1

struct pgl_stmt {
	const char *sql;               /* $1..$n placeholders */
	unsigned nparams;
	enum pgl_var params[PGL_MAX_PARAMS];
};

struct pgl_script {
	const char *name;
	const char *description;
	unsigned nstmts;
	struct pgl_stmt stmts[PGL_MAX_STMTS];
	/* Draw the variables of one transaction for a database of this scale. */
	void (*draw)(struct pgl_rng *rng, int64_t scale, int64_t vars[PGL_NVARS]);
};

extern const struct pgl_script *const pgl_builtin_scripts[];
extern const size_t pgl_builtin_script_count;

/*
 * Find a built-in by exact name or unique prefix.  -ENOENT (unknown) or
 * -EINVAL (ambiguous prefix), with err naming the candidates.
 */
int pgl_script_find(const char *name, const struct pgl_script **ret, struct dut_error *err);

struct pgl_mix_entry {
	const struct pgl_script *script;
	uint32_t weight;
};

struct pgl_mix {
	unsigned n;
	uint64_t total_weight;
	struct pgl_mix_entry e[PGL_MAX_MIX];
};

void pgl_mix_init(struct pgl_mix *m);
/* Add "NAME[@WEIGHT]".  -EINVAL / -ENOENT / -E2BIG with err set. */
int pgl_mix_add(struct pgl_mix *m, const char *spec, struct dut_error *err);
/* After all adds: -EINVAL if empty or the weights sum to zero. */
int pgl_mix_validate(const struct pgl_mix *m, struct dut_error *err);
/* Index of the entry chosen for a uniform draw u in [0, total_weight). */
unsigned pgl_mix_choose(const struct pgl_mix *m, uint64_t u);
static inline unsigned pgl_mix_pick(const struct pgl_mix *m, struct pgl_rng *rng)
{
	if (m->n == 1)
		return 0;
	return pgl_mix_choose(m, (uint64_t)pgl_rng_range(rng, 0, (int64_t)m->total_weight - 1));
}

/*
 * Render a statement for the simple protocol: each $n replaced by the
 * decimal value of its variable.  Returns the length, or -ENOSPC if buf is
 * too small (buf then holds a truncated, NUL-terminated prefix).
 */
int pgl_stmt_render(const struct pgl_stmt *st, const int64_t vars[PGL_NVARS], char *buf,
		    size_t len);

/* Decimal text of v into buf (>= 21 bytes); returns the length. */
unsigned pgl_i64_to_text(int64_t v, char *buf);

#endif
