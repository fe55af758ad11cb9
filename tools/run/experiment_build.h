/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parser's collected sections, between experiment_parse.c and experiment_build.c. */
#ifndef DUTLAB_RUN_EXPERIMENT_BUILD_H
#define DUTLAB_RUN_EXPERIMENT_BUILD_H

#include "lib/ini_doc.h"
#include "tools/run/experiment_priv.h"

enum exp_section_kind {
	S_EXPERIMENT, S_TARGET, S_FILESYSTEM, S_DUTFS, S_POSTGRES, S_TABLESPACE, S_REPLICA,
	S_MATRIX, S_STEP, S_COUNT,
};
extern const char *const exp_section_names[];   /* NULL-terminated */

struct exp_kv {
	char *key, *value;
	unsigned line;
	bool used;
};

struct exp_section {
	enum exp_section_kind kind;
	char name[DUT_EXP_NAME_MAX + 1];    /* "" for unnamed sections */
	unsigned line;
	struct exp_kv *kv;
	size_t nkv;
};

struct exp_ctx {
	unsigned line;          /* the text's last line */
	struct exp_section *sec;
	size_t nsec;
	struct dut_ini_errors errs; /* .failed: -errno once an error is recorded */
};

/* Record the first error: "source:line: [kind name]: msg". */
void exp_error(struct exp_ctx *c, unsigned line, const struct exp_section *s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool exp_name_ok(const char *s, size_t n);
/* A PostgreSQL setting name of n bytes (dut_setting_name_ok for a counted string). */
bool exp_setting_name_okn(const char *s, size_t n);
/* Lines of base keys that a [matrix] key may not repeat (0: not set). */
struct base_lines {
	unsigned filesystem, view, shape, replica, pg;
};
extern const char *const exp_views[], *const exp_replica_modes[];   /* NULL-terminated */
/* *dst = a copy of v (freeing the old one); false (c->failed = -ENOMEM) without memory. */
bool exp_dup_to(struct exp_ctx *c, char **dst, const char *v);
/* experiment_matrix.c: [matrix] -> e->dims and e->nconfigs. */
bool exp_build_matrix(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e, const struct base_lines *b);
/* experiment_pgver.c: a [postgres]/[matrix] version value (13..99; msg
 * says why not), and [postgres] version/bindir into e. */
bool exp_pg_version_value(const char *text, unsigned *ret, char *msg, size_t len);
/* A block_size (wal: wal_block_size) value into *ret in kB; msg says why not. */
bool exp_pg_block_value(const char *text, bool wal, unsigned *ret, char *msg, size_t len);
bool exp_build_pg_install(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e);
/* experiment_soak.c: [dutfs] trace-max, trace-segments (after trace) and
 * [experiment] progress, report-every into e. */
bool exp_build_trace_max(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e);
bool exp_build_soak(struct exp_ctx *c, struct exp_section *s, struct dut_experiment *e);
/* Sections -> experiment, then cross-checks and every configuration. */
int exp_build(struct exp_ctx *c, struct dut_experiment *e);

#endif
