/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DSS result as a lib/result.h document (see report.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pgload/dss/report.h"

static int add(json_object *o, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, key, v) ? -ENOMEM : 0;
}

static json_object *hex64(uint64_t v)
{
	char buf[19];

	snprintf(buf, sizeof(buf), "%016" PRIx64, v);
	return json_object_new_string(buf);
}

static int fill_config(const struct dss_report *r, struct dut_result *res)
{
	json_object *c = dut_result_config(res), *t = dut_result_target(res);
	int ret = 0;

	ret |= add(t, "workload", json_object_new_string(
		"TPC-H-derived decision support (not comparable to TPC-H results)"));
	if (r->server_version[0])
		ret |= add(t, "server_version", json_object_new_string(r->server_version));
	/* as pgbench results have it: a build of another block size is told apart (#26) */
	if (r->block_size)
		ret |= add(t, "block_size", json_object_new_int64(r->block_size));
	if (r->wal_block_size)
		ret |= add(t, "wal_block_size", json_object_new_int64(r->wal_block_size));
	ret |= add(c, "scale_factor", json_object_new_double(r->sf));
	ret |= add(c, "data_seed", json_object_new_uint64(r->data_seed));
	ret |= add(c, "threads", json_object_new_int((int)r->threads));
	ret |= add(c, "params", json_object_new_string(r->random_params ? "random" : "default"));
	ret |= add(c, "param_seed", json_object_new_uint64(r->param_seed));
	ret |= add(c, "repetitions", json_object_new_int((int)r->reps));
	ret |= add(c, "statement_timeout_ns", json_object_new_uint64(r->timeout_ns));
	ret |= add(c, "statistics_target", json_object_new_int((int)r->stats_target));
	ret |= add(c, "sink", json_object_new_string(r->sink ? r->sink : "copy"));
	return ret ? -ENOMEM : 0;
}

static int fill_load(const struct dss_report *r, struct dut_result_phase *ph)
{
	const struct dss_gen_stats *g = &r->gen;
	json_object *extra = dut_phase_extra(ph), *tables, *threads;
	uint64_t rows = 0, bytes = 0;
	double wall = fmax((double)g->wall_ns / 1e9, 1e-9);
	int ret = 0;

	ret |= add(extra, "tables", tables = json_object_new_object());
	ret |= add(extra, "threads", threads = json_object_new_array());
	if (ret)
		return -ENOMEM;
	for (unsigned j = 0; j < r->njobs; j++) {
		json_object *t = json_object_new_object();
		ret |= add(tables, dss_table_name(r->jobs[j].t), t);
		if (!t)
			return -ENOMEM;
		ret |= add(t, "rows", json_object_new_uint64(g->job[j].rows));
		ret |= add(t, "bytes", json_object_new_uint64(g->job[j].bytes));
		rows += g->job[j].rows;
		bytes += g->job[j].bytes;
	}
	for (unsigned i = 0; i < g->threads; i++) {
		const struct dss_gen_thread_stats *s = &g->thread[i];
		json_object *t = json_object_new_object();
		if (!t || json_object_array_add(threads, t))
			return -ENOMEM;
		ret |= add(t, "rows", json_object_new_uint64(s->rows));
		ret |= add(t, "bytes", json_object_new_uint64(s->bytes));
		ret |= add(t, "chunks", json_object_new_uint64(s->chunks));
		ret |= add(t, "generate_ns", json_object_new_uint64(s->gen_ns));
		ret |= add(t, "generate_cpu_ns", json_object_new_uint64(s->gen_cpu_ns));
		ret |= add(t, "sink_ns", json_object_new_uint64(s->sink_ns));
	}
	ret |= add(extra, "sink", json_object_new_string(r->sink ? r->sink : "copy"));
	if (ret)
		return -ENOMEM;
	ret = dut_phase_set_metric(ph, "rows", (double)rows, "rows");
	if (!ret)
		ret = dut_phase_set_metric(ph, "bytes", (double)bytes, "B");
	if (!ret)
		ret = dut_phase_set_metric(ph, "rows_per_s", rows / wall, "rows/s");
	if (!ret)
		ret = dut_phase_set_metric(ph, "bytes_per_s", bytes / wall, "B/s");
	return ret;
}

static int fill_steps(const struct dss_report *r, enum dss_phase p, struct dut_result_phase *ph)
{
	json_object *steps = json_object_new_array();
	uint64_t by_kind[4] = { 0 };
	static const char *const kinds[4] = { "primary key", "index", "foreign key", NULL };
	static const char *const metric[4] = { "primary_keys", "indexes", "foreign_keys", NULL };
	int ret = add(dut_phase_extra(ph), "steps", steps);

	for (unsigned i = 0; !ret && i < r->nsteps[p]; i++) {
		const struct dss_step *s = &r->steps[p][i];
		json_object *o = json_object_new_object();
		if (!o || json_object_array_add(steps, o))
			return -ENOMEM;
		ret |= add(o, "name", json_object_new_string(s->name));
		ret |= add(o, "kind", json_object_new_string(s->kind));
		ret |= add(o, "duration_ns", json_object_new_uint64(s->ns));
		ret |= add(o, "status", json_object_new_string(dss_status_name(s->status)));
		if (p == DSS_PH_RF)
			ret |= add(o, "rows", json_object_new_uint64(s->rows));
		if (s->status != DSS_OK)
			ret |= add(o, "error", json_object_new_string(s->error));
		for (unsigned k = 0; kinds[k]; k++)
			if (strcmp(s->kind, kinds[k]) == 0)
				by_kind[k] += s->ns;
	}
	if (ret)
		return -ENOMEM;
	if (p == DSS_PH_KEYS)
		for (unsigned k = 0; !ret && kinds[k]; k++)
			ret = dut_phase_set_metric(ph, metric[k], (double)by_kind[k], "ns");
	if (!ret && p == DSS_PH_ANALYZE)
		ret = dut_phase_set_metric(ph, "statistics_target", r->stats_target, "");
	return ret;
}

static int fill_query(const struct dss_query_run *q, json_object *arr)
{
	json_object *o = json_object_new_object(), *params = json_object_new_array();
	int ret = 0;

	if (!o || !params || json_object_array_add(arr, o)) {
		json_object_put(o);
		json_object_put(params);
		return -ENOMEM;
	}
	ret |= add(o, "query", json_object_new_int((int)q->q));
	ret |= add(o, "title", json_object_new_string(dss_query_title(q->q)));
	ret |= add(o, "rep", json_object_new_int((int)q->rep));
	ret |= add(o, "status", json_object_new_string(dss_status_name(q->status)));
	ret |= add(o, "duration_ns", json_object_new_uint64(q->ns));
	ret |= add(o, "rows", json_object_new_uint64(q->rows));
	ret |= add(o, "params", params);
	for (unsigned i = 0; i < q->params.n; i++)
		ret |= json_object_array_add(params, json_object_new_string(q->params.v[i]));
	if (q->shape) {
		ret |= add(o, "plan_fingerprint", hex64(q->fingerprint));
		ret |= add(o, "plan_shape", json_object_new_string(q->shape));
	}
	if (q->plan_json) {
		json_object *plan = json_tokener_parse(q->plan_json);
		ret |= add(o, "plan", plan ? plan : json_object_new_string(q->plan_json));
	}
	if (q->status != DSS_OK)
		ret |= add(o, "error", json_object_new_string(q->error));
	return ret ? -ENOMEM : 0;
}

static int fill_queries(const struct dss_report *r, struct dut_result_phase *ph)
{
	json_object *arr = json_object_new_array();
	unsigned n[3] = { 0 };
	uint64_t total = 0;
	double logsum = 0;
	int ret = add(dut_phase_extra(ph), "queries", arr);

	for (unsigned i = 0; !ret && i < r->nruns; i++) {
		const struct dss_query_run *q = &r->runs[i];
		ret = fill_query(q, arr);
		n[q->status]++;
		if (q->status == DSS_OK) {
			total += q->ns;
			logsum += log(fmax((double)q->ns, 1.0));
		}
	}
	if (!ret)
		ret = dut_phase_set_metric(ph, "queries_ok", n[DSS_OK], "queries");
	if (!ret)
		ret = dut_phase_set_metric(ph, "queries_timeout", n[DSS_TIMEOUT], "queries");
	if (!ret)
		ret = dut_phase_set_metric(ph, "queries_failed", n[DSS_FAILED], "queries");
	if (!ret)
		ret = dut_phase_set_metric(ph, "query_time_total", (double)total, "ns");
	if (!ret && n[DSS_OK])
		ret = dut_phase_set_metric(ph, "query_time_geomean", exp(logsum / n[DSS_OK]), "ns");
	return ret;
}

int dss_report_to_result(const struct dss_report *r, struct dut_result *res)
{
	int ret = fill_config(r, res);

	for (unsigned p = 0; !ret && p < DSS_NPHASES; p++) {
		if (!r->ran[p])
			continue;
		struct dut_result_phase *ph = dut_result_add_phase(res, dss_phase_name(p));
		if (!ph)
			return -ENOMEM;
		ret = dut_phase_set_duration(ph, r->phase_ns[p]);
		if (!ret)
			ret = add(dut_phase_extra(ph), "status",
				  json_object_new_string(dss_status_name(r->phase_status[p])));
		if (ret)
			break;
		if (p == DSS_PH_LOAD)
			ret = fill_load(r, ph);
		else if (p == DSS_PH_QUERIES)
			ret = fill_queries(r, ph);
		else
			ret = fill_steps(r, p, ph);
	}
	return ret;
}
