/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run report's section of a crash step (pure): per configuration and
 * repetition the campaign's counts and verdict (dutlab crash's document,
 * docs/result-schema.md "dutlab crash"), the states by crash point and by
 * loss mode, the device's atomicity, and the first failing state with the
 * command that re-runs it.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/report_doc.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_stats.h"

#define CRASH_MAX_DOCS 16

static double metric(const struct dut_result *doc, const char *name)
{
	struct dut_result_phase *ph = dut_result_find_phase(doc, "campaign");
	double v = 0;

	if (ph)
		dut_phase_get_metric(ph, name, &v, NULL);
	return v;
}

static json_object *extra(const struct dut_result *doc, const char *key)
{
	struct dut_result_phase *ph = dut_result_find_phase(doc, "campaign");

	return ph ? rundir_jget(dut_phase_extra(ph), key) : NULL;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v = rundir_jget(o, key);

	return v && json_object_get_boolean(v);
}

static long long jint(json_object *o, const char *key)
{
	json_object *v = rundir_jget(o, key);

	return v ? json_object_get_int64(v) : 0;
}

/* One row per distinct value of member `by` (point or loss) among the states of one control kind. */
static void group_rows(struct rdoc *d, const char *cfg, unsigned rep, json_object *states, const char *by)
{
	const char *seen[32];
	size_t nseen = 0, n = json_object_array_length(states);

	for (size_t i = 0; i < n; i++) {
		const char *k = rundir_jstr(json_object_array_get_idx(states, i), by);
		bool dup = false;
		unsigned cnt = 0, ckpt = 0, started = 0, damaged = 0;
		long long lost = 0, half = 0, am = 0;

		for (size_t s = 0; s < nseen; s++)
			dup |= strcmp(seen[s], k) == 0;
		if (dup || nseen == 32 || strcmp(rundir_jstr(json_object_array_get_idx(states, i), "control"), "regular"))
			continue;
		seen[nseen++] = k;
		for (size_t j = i; j < n; j++) {
			json_object *o = json_object_array_get_idx(states, j);

			if (strcmp(rundir_jstr(o, by), k) || strcmp(rundir_jstr(o, "control"), "regular"))
				continue;
			cnt++;
			ckpt += jbool(o, "in_checkpoint");
			started += jbool(o, "started");
			damaged += jbool(o, "damaged");
			lost += jint(o, "commits_lost");
			half += jint(o, "half_present");
			am += jint(o, "amcheck_lines");
		}
		rdoc_cell(d, "%s", cfg);
		rdoc_cell(d, "%u", rep);
		rdoc_cell(d, "%s %s", strcmp(by, "point") ? "loss" : "point", k);
		rdoc_cell(d, "%u", cnt);
		rdoc_cell(d, "%u", ckpt);
		rdoc_cell(d, "%u", started);
		rdoc_cell(d, "%lld", lost);
		rdoc_cell(d, "%lld", half);
		rdoc_cell(d, "%lld", am);
		rdoc_cell(d, "%u", damaged);
	}
}

void report_crash_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "Crash campaign (dutlab crash, docs/crash.md), one row per repetition. states: crash "
		   "states run (each a copy of the cluster crashed on dutfs, restarted and checked); damaged: of "
		   "those with fsync honoured, the ones that did not start, lost an acknowledged commit, kept "
		   "half a transaction, or had pg_amcheck or checksum complaints; controls: negative-control "
		   "states that saw damage / run (full_page_writes=off with pages torn at 4 KiB, fsync=off), "
		   "which must see damage for a clean result to mean anything; recovery: the restart after the "
		   "crash, p50 / max.",
		   "configuration|>rep|>states|>states/min|>damaged|>commits lost|>half-present|>amcheck lines|"
		   ">recovery p50 / max (ms)|>full_page_writes=off|>fsync=off|verdict");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[CRASH_MAX_DOCS];
		const struct rundir_config *c = &m->configs[i];
		size_t n = rundir_config_docs(c, step, docs, CRASH_MAX_DOCS);

		for (size_t k = 0; k < n; k++) {
			json_object *v = extra(docs[k], "verdict");

			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%zu", k + 1);
			rdoc_cell(d, "%.0f", metric(docs[k], "states"));
			rdoc_cell(d, "%.1f", metric(docs[k], "states_per_minute"));
			rdoc_cell(d, "%.0f of %.0f", metric(docs[k], "regular_damaged"), metric(docs[k], "regular_states"));
			rdoc_cell(d, "%.0f", metric(docs[k], "commits_lost"));
			rdoc_cell(d, "%.0f", metric(docs[k], "half_present"));
			rdoc_cell(d, "%.0f", metric(docs[k], "amcheck_lines"));
			rdoc_cell(d, "%.0f / %.0f", metric(docs[k], "recovery_p50_ms"), metric(docs[k], "recovery_max_ms"));
			rdoc_cell(d, "%.0f / %.0f", metric(docs[k], "fpw_off_detected"), metric(docs[k], "fpw_off_states"));
			rdoc_cell(d, "%.0f / %.0f", metric(docs[k], "fsync_off_detected"), metric(docs[k], "fsync_off_states"));
			rdoc_cell(d, "%s%s%s", jbool(v, "pass") ? "PASS" : "FAIL", rundir_jstr(v, "why")[0] ? ": " : "",
				  rundir_jstr(v, "why"));
		}
	}
	rdoc_table(d, "Crash states with fsync honoured by crash point and by loss mode (first repetition of each "
		   "configuration). in checkpoint: the crash fell between a checkpoint's start and its end.",
		   "configuration|>rep|kind|>states|>in checkpoint|>started|>commits lost|>half-present|"
		   ">amcheck lines|>damaged");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		json_object *states;

		if (!rundir_config_docs(&m->configs[i], step, docs, 1) || !(states = extra(docs[0], "states")) ||
		    !json_object_is_type(states, json_type_array))
			continue;
		group_rows(d, m->configs[i].name, 1, states, "point");
		group_rows(d, m->configs[i].name, 1, states, "loss");
	}
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[CRASH_MAX_DOCS];
		size_t n = rundir_config_docs(&m->configs[i], step, docs, CRASH_MAX_DOCS);

		for (size_t k = 0; k < n; k++) {
			json_object *v = extra(docs[k], "verdict"), *cfg = rundir_jget(dut_result_json(docs[k]), "config");
			json_object *states = extra(docs[k], "states"), *first = rundir_jget(v, "first_failing_state");

			rdoc_para(d, "%s rep %zu: %s.", m->configs[i].name, k + 1, rundir_jstr(cfg, "atomicity"));
			if (rundir_jstr(cfg, "class_loss")[0])
				rdoc_para(d, "%s rep %zu: loss fixed by class in every regular state: %s (class-loss); the "
					  "loss rows are the mode drawn for the other classes.", m->configs[i].name, k + 1,
					  rundir_jstr(cfg, "class_loss"));
			if (!first || !states || !json_object_is_type(states, json_type_array))
				continue;
			for (size_t s = 0; s < json_object_array_length(states); s++) {
				json_object *o = json_object_array_get_idx(states, s);

				if (jint(o, "index") != json_object_get_int64(first))
					continue;
				rdoc_para(d, "%s rep %zu: first failing state %lld (%s, %s): %s. Reproduce: `%s`.",
					  m->configs[i].name, k + 1, jint(o, "index"), rundir_jstr(o, "point"),
					  rundir_jstr(o, "loss"), rundir_jstr(o, "summary"), rundir_jstr(v, "reproduce"));
			}
		}
	}
}
