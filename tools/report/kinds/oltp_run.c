/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind oltp-run (pgload run documents): TPS, latency, replica lag, reads. */
#include <string.h>

#include <json-c/json.h>

#include "lib/run_manifest.h"
#include "tools/report/chart_priv.h"
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_bursts.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_answer_why.h"
#include "tools/report/report_run_reads.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void oltp_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	report_oltp_table(d, m, step);
	report_replica_lag_table(d, m, step);
	report_reads_table(d, m, step, false);
}

static void oltp_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		struct cmp_stat v = rundir_metric(c, st, "run", "tps"), base = rundir_metric(b, st, "run", "tps");

		answer_row(d, c->name, st, "TPS (tx/s)", &v, 1, 1, &base);
		if (c->replica[0] && strcmp(c->replica, "none") != 0) {
			/* what the replica cost besides TPS: how far behind it ran */
			v = rundir_metric(c, st, "run", "replay_lag_ms_p99");
			answer_row(d, c->name, st, "standby replay lag p99 (ms)", &v, 1, 2, NULL);
		}
	}
}

/* The database the run measured: pgload's target.database_bytes. */
static double oltp_database_bytes(const struct dut_result *d)
{
	return json_object_get_double(rundir_jget(rundir_jget(dut_result_json(d), "target"), DUT_RM_DATABASE_BYTES));
}

const struct rundir_kind_ops rundir_kind_oltp_run = {
	.kind = DOC_oltp_run, .step_kind = "oltp-run", .label = "pgload oltp",
	.doc_tool = "pgload", .doc_key = "workload", .doc_value = "oltp",
	.table = oltp_table, .config_charts = chart_oltp_lag, .findings = findings_tps, .answer = oltp_answer,
	.why_config = answer_why_oltp, .database_bytes = oltp_database_bytes, .answer_table = answer_bursts_step,
	.traps = findings_traps_oltp,
};
