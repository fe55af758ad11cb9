/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer section of a run directory's report (pure): what the experiment
 * asked, the kinds' head (the device) and the memory the server had, the headline figure of
 * each step per configuration, why (what limited each OLTP step, the
 * restore verdicts, from the evidence in the run directory), and the trap
 * findings: what the run did not measure.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "tools/compare/compare.h"
#include "tools/report/report_answer.h"
#include "tools/report/report_answer_bursts.h"
#include "tools/report/report_answer_dss.h"
#include "tools/report/report_answer_fill.h"
#include "tools/report/report_answer_head.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/report_answer_srv.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)

/* ---- the answer: what the experiment asked, the numbers, and why ---- */

/* The headline figure of each step per configuration, by its kind's answer op. */
static void answer_numbers(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps,
			   size_t nsteps)
{
	rdoc_table(d, "The answer in numbers: the headline figure of each step per configuration, its "
		   "median over the runs, the min-max range of the runs, and its ratio to the first "
		   "configuration.", "configuration|step|figure|>median|>min-max|>runs|>vs first");
	for (size_t s = 0; s < nsteps; s++) {
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->answer)
			ops->answer(d, m, steps[s].name);
	}
}

/* The memory the server had against the data set: what makes a run out of cache. */
static void answer_memory(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps,
			  size_t nsteps)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		double db = 0;
		char a[32], b[32];

		for (size_t s = 0; s < nsteps && !db; s++) {
			const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);
			const struct dut_result *docs[1];

			if (ops && ops->database_bytes && rundir_config_docs(c, steps[s].name, docs, 1))
				db = ops->database_bytes(docs[0]);
		}
		if (!db && !c->memory_budget_bytes)
			continue;
		if (c->memory_budget_bytes && db > (double)c->memory_budget_bytes)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget with a %s MiB database "
				  "(%.1fx the budget), so the data set did not fit in its memory.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)),
				  rundir_fmt_num(db / 1048576, 0, b, sizeof(b)), db / (double)c->memory_budget_bytes);
		else if (c->memory_budget_bytes && db > 0)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget with a %s MiB database "
				  "(%.1fx the budget): the data set fit in its memory, so its reads could be "
				  "served from memory; a budget below the database size measures the device.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)),
				  rundir_fmt_num(db / 1048576, 0, b, sizeof(b)), db / (double)c->memory_budget_bytes);
		else if (c->memory_budget_bytes)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)));
		else
			rdoc_para(d, "Memory, %s: no memory budget; the %s MiB database could sit in the "
				  "host's page cache (%s GiB of memory).", c->name, rundir_fmt_num(db / 1048576, 0, a, sizeof(a)),
				  m->have_host ? rundir_fmt_num((double)m->host.mem_bytes / 1073741824, 1, b, sizeof(b)) : "?");
	}
}

void report_answer_section(struct rdoc *d, const struct rundir_model *m, const struct findings *f,
			   const struct rundir_stepinfo *steps, size_t nsteps)
{
	size_t ntraps = 0, nwhy = 0;
	bool open = false;

	rdoc_heading(d, 2, "Answer");
	if (m->description && m->description[0])
		rdoc_para(d, "Asked: %s (experiment %s).", m->description, m->name);
	else
		rdoc_para(d, "Asked: experiment %s (the manifest has no description).", m->name);
	for (size_t s = 0; s < nsteps; s++) {
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->answer_head)
			ops->answer_head(d, m, steps[s].name, &open);
	}
	answer_memory(d, m, steps, nsteps);
	for (size_t s = 0; s < nsteps; s++)
		if (rundir_kind_ops_of(steps[s].kind) && rundir_kind_ops_of(steps[s].kind)->answer) {
			answer_numbers(d, m, steps, nsteps);
			break;
		} else if (s + 1 == nsteps) {
			rdoc_para(d, "No step of this run has a headline figure (no result document of a "
				  "measuring step was read).");
		}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].kind == (k ? FIND_DSS_PLANS : FIND_TPS_RATIO) && !f->v[i].shown &&
			    (k == 0 || !isnan(f->v[i].value[2]))) {
				rdoc_para(d, "No %s difference between configurations is shown by this run: see "
					  "the findings for why (one repetition, overlapping ranges, or "
					  "configurations run one after another).", k ? "DSS m-time" : "TPS");
				break;
			}
	rdoc_para(d, "Why, per configuration and step, from the evidence in the run directory:");
	rdoc_list(d);
	for (size_t s = 0; s < nsteps; s++) {
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->why_step)
			nwhy += ops->why_step(d, m, steps[s].name);
		for (size_t i = 0; ops && ops->why_config && i < m->nconfigs; i++) {
			size_t before = d->n ? d->b[d->n - 1].nitems : 0;

			ops->why_config(d, &m->configs[i], steps[s].name);
			nwhy += d->b[d->n - 1].nitems - before;
		}
	}
	if (!nwhy)
		rdoc_item(d, "no step of this run has the evidence the report explains from (OLTP steps "
			  "with a trace, restore verdicts, DSS phases, fill levels); the numbers above stand "
			  "alone.");
	open = false;
	for (size_t s = 0; s < nsteps; s++) {
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->answer_table)
			ops->answer_table(d, m, steps[s].name, &open);
	}
	for (size_t i = 0; i < f->n; i++)
		ntraps += f->v[i].trap;
	if (ntraps) {
		rdoc_para(d, "What this run did not measure (%zu trap finding%s; each says how to fix it):",
			  ntraps, ntraps == 1 ? "" : "s");
		rdoc_list(d);
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].trap)
				rdoc_item(d, "%s.", f->v[i].text);
	}
}
