/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer's data-file writes against TPS dips of an OLTP step (pure):
 * the step's runs gathered from the run model (pgload's per-second TPS,
 * the trace's per-tick data-file writes of the step's phase, pgload's
 * checkpointer samples) and given to burst_analyse (report_bursts.h).
 */
#ifndef DUTLAB_REPORT_ANSWER_BURSTS_H
#define DUTLAB_REPORT_ANSWER_BURSTS_H

#include <stddef.h>

#include "tools/report/report_bursts.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

/* 0, -ENOENT when the step has no per-second series, -ENOMEM. */
int answer_bursts_of(const struct rundir_config *c, const char *step, struct burst_result *ret);
/* The sentence of the why list: "data-file writes against TPS dips: ..." */
void answer_bursts_text(const struct burst_result *b, const char *view, char *buf, size_t n);
/* The row of the table (header: ANSWER_BURSTS_HEADERS). */
#define ANSWER_BURSTS_HEADERS "configuration|step|>runs|>seconds|>TPS median|>dips|>at a write burst|" \
	">at a checkpoint|>at neither|>burst seconds|>TPS in burst seconds|>TPS in the others|" \
	">data-file MiB written"
void answer_bursts_row(struct rdoc *d, const char *cfg, const char *step, const struct burst_result *b);
/* The why list's item of an OLTP step of a configuration (nothing when it has no per-second series). */
void answer_bursts_item(struct rdoc *d, const struct rundir_config *c, const char *step);
/* The table's rows of OLTP step `step`, each configuration with a second to compare; the
 * table's heading first unless *open (then set): oltp-run's answer_table op. */
void answer_bursts_step(struct rdoc *d, const struct rundir_model *m, const char *step, bool *open);

#endif
