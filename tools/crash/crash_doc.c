/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash's result document in the dutlab-result schema (lib/result.h,
 * docs/result-schema.md "dutlab crash"): config.workload "crash", a
 * "template" phase and a "campaign" phase whose metrics are the campaign's
 * counts and whose extra holds every state and the verdict.  Pure: the
 * caller adds the command line and the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/crash/crash_result.h"

#define NS_PER_MS 1000000ull

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Move member key of from into to (a new reference in to, none left in from). */
static void move_member(json_object *from, const char *key, json_object *to)
{
	json_object *v;

	if (!json_object_object_get_ex(from, key, &v))
		return;
	json_object_object_add(to, key, json_object_get(v));
	json_object_object_del(from, key);
}

/* The counts of the regular states (fsync honoured) as metrics. */
static int campaign_metrics(const struct crash_report *r, struct dut_result_phase *ph)
{
	uint64_t lost = 0, half = 0, amcheck = 0, *rec = NULL;
	size_t run = 0, nrec = 0, started = 0;
	struct crash_verdict v;
	int ret = 0;

	crash_report_verdict(r, &v);
	if (r->n && !(rec = calloc(r->n, sizeof(*rec))))
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		const struct crash_outcome *o = &r->o[i];

		run += !o->harness_error;
		if (o->harness_error || o->st.control)
			continue;
		lost += o->lost;
		half += o->half;
		amcheck += o->amcheck_lines;
		started += o->started;
		if (o->started)
			rec[nrec++] = o->phase_ms[CRASH_PH_RECOVERY];
	}
	if (nrec)
		qsort(rec, nrec, sizeof(*rec), cmp_u64);
	{
		const struct { const char *name; double value; const char *unit; } m[] = {
			{ "states", (double)run, "" },
			{ "states_per_minute", r->elapsed_ms > r->template_ms && run ?
			  (double)run * 60000.0 / (double)(r->elapsed_ms - r->template_ms) : 0, "states/min" },
			{ "regular_states", (double)v.regular, "" },
			{ "regular_damaged", (double)v.regular_damaged, "" },
			{ "regular_started", (double)started, "" },
			{ "commits_lost", (double)lost, "" },
			{ "half_present", (double)half, "" },
			{ "amcheck_lines", (double)amcheck, "" },
			{ "recovery_p50_ms", nrec ? (double)rec[(nrec - 1) / 2] : 0, "ms" },
			{ "recovery_max_ms", nrec ? (double)rec[nrec - 1] : 0, "ms" },
			{ "fpw_off_states", (double)v.fpw_states, "" },
			{ "fpw_off_detected", (double)v.fpw_detected, "" },
			{ "fsync_off_states", (double)v.fsync_states, "" },
			{ "fsync_off_detected", (double)v.fsync_detected, "" },
			{ "harness_errors", (double)v.harness_errors, "" },
			{ "pass", v.pass ? 1 : 0, "" },
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]) && ret == 0; i++)
			ret = dut_phase_set_metric(ph, m[i].name, m[i].value, m[i].unit);
	}
	free(rec);
	return ret;
}

int crash_report_result(const struct crash_report *r, const char *version, struct dut_result **ret)
{
	struct dut_result *res = dut_result_new("dutlab", version);
	json_object *legacy = crash_report_json(r), *cfg, *x, *ph_mean, *v;
	struct dut_result_phase *tp, *cp;
	uint64_t sum[CRASH_PHASES] = { 0 };
	int rc = -ENOMEM;

	if (!res || !legacy)
		goto out;
	cfg = dut_result_config(res);
	json_object_object_add(cfg, "workload", json_object_new_string("crash"));
	if (json_object_object_get_ex(legacy, "config", &v)) {
		json_object_object_foreach(v, key, val)
			json_object_object_add(cfg, key, json_object_get(val));
	}
	if (!(tp = dut_result_add_phase(res, "template")) ||
	    (rc = dut_phase_set_duration(tp, r->template_ms * NS_PER_MS)) < 0)
		goto out;
	rc = -ENOMEM;
	if (!(cp = dut_result_add_phase(res, "campaign")))
		goto out;
	if ((rc = dut_phase_set_duration(cp, (r->elapsed_ms > r->template_ms ? r->elapsed_ms - r->template_ms : 0) *
					 NS_PER_MS)) < 0 ||
	    (rc = campaign_metrics(r, cp)) < 0)
		goto out;
	x = dut_phase_extra(cp);
	move_member(legacy, "states", x);
	move_member(legacy, "verdict", x);
	move_member(legacy, "states_per_minute", x);
	move_member(legacy, "elapsed_ms", x);
	move_member(legacy, "template_ms", x);
	ph_mean = json_object_new_object();
	for (size_t i = 0; i < r->n; i++)
		for (unsigned p = 0; p < CRASH_PHASES; p++)
			sum[p] += r->o[i].phase_ms[p];
	for (unsigned p = 0; p < CRASH_PHASES && r->n; p++)
		json_object_object_add(ph_mean, crash_phase_name(p), json_object_new_int64((int64_t)(sum[p] / r->n)));
	json_object_object_add(x, "phase_mean_ms", ph_mean);
	*ret = res;
	res = NULL;
	rc = 0;
out:
	json_object_put(legacy);
	dut_result_free(res);
	return rc;
}
