/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What findings.c and findings_traps.c share. */
#ifndef DUTLAB_FINDINGS_PRIV_H
#define DUTLAB_FINDINGS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/report/findings.h"
#include "tools/report/rundir_stats.h"

#define MB 1e6
#define MIB (1024.0 * 1024.0)

/* Append a finding; f's subject and the text are formatted here.  -ENOMEM. */
int findings_add(struct findings *fs, const struct finding *f, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The member key of a result document's JSON, or NULL. */
struct json_object *findings_doc_member(const struct dut_result *r, const char *key);

/* The traps of configuration ci over its steps (findings_traps.c). */
int findings_traps(const struct rundir_model *m, size_t ci, const struct rundir_stepinfo *steps, size_t nsteps,
		   struct findings *fs);

/* The findings bodies of findings.c (the step kinds' ops, findings_build.c): of step
 * `step` (NULL: the whole traces, findings_io) in configuration ci; 0 or -errno. */
int findings_io(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs, bool *ret_any);
int findings_cache(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_slc(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_fill(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_crash(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_tps(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_dss(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
/* The PostgreSQL kinds' traps (findings_traps_pg.c; the kinds' traps ops). */
int findings_traps_oltp(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
int findings_traps_dss(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);

#endif
