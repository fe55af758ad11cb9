/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab results push: one loaded run into the schema, in one transaction.
 * Idempotence: the run row goes in first with ON CONFLICT (run_id) DO
 * NOTHING; when the run is there already the transaction is rolled back and
 * nothing changes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/results/results_db.h"
#include "tools/results/results_db_priv.h"
#include "tools/run/experiment.h"

#define MAXP 14

/* The text parameters of one statement. */
struct params {
	const char *v[MAXP];
	char buf[MAXP][48];
	int n;
};

static void p_str(struct params *p, const char *s)
{
	p->v[p->n++] = s;
}

static void p_opt(struct params *p, const char *s)   /* "" is NULL */
{
	p->v[p->n++] = s && *s ? s : NULL;
}

static void p_u64(struct params *p, uint64_t x)
{
	snprintf(p->buf[p->n], sizeof(p->buf[0]), "%" PRIu64, x);
	p->v[p->n] = p->buf[p->n];
	p->n++;
}

static void p_int(struct params *p, long long x)
{
	snprintf(p->buf[p->n], sizeof(p->buf[0]), "%lld", x);
	p->v[p->n] = p->buf[p->n];
	p->n++;
}

static void p_dbl(struct params *p, double x)    /* NAN is NULL */
{
	if (isnan(x)) {
		p->v[p->n++] = NULL;
		return;
	}
	snprintf(p->buf[p->n], sizeof(p->buf[0]), "%.17g", x);
	p->v[p->n] = p->buf[p->n];
	p->n++;
}

struct pusher {
	PGconn *c;
	size_t rows;
	struct dut_error *err;
};

/* Run a statement; a returned value (RETURNING) goes to ret (may be NULL). */
static int put(struct pusher *x, const char *sql, const struct params *p, const char *what,
	       char *ret, size_t len, bool *ret_none)
{
	PGresult *res = PQexecParams(x->c, sql, p->n, NULL, p->v, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return rdb_result_error(res, what, x->err);
	x->rows += strtoul(PQcmdTuples(res), NULL, 10);
	if (ret_none)
		*ret_none = st == PGRES_TUPLES_OK && PQntuples(res) == 0;
	if (ret && st == PGRES_TUPLES_OK && PQntuples(res) > 0)
		snprintf(ret, len, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

static int push_findings(struct pusher *x, const char *run_id, const struct rundir_model *m,
			 const struct findings *f)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const struct finding *fi = &f->v[i];
		char counts[3 * 24 + 4], vals[8 * 28 + 4];
		struct params p = { 0 };
		size_t o = 0;

		o += (size_t)snprintf(counts + o, sizeof(counts) - o, "{");
		for (size_t k = 0; k < 3; k++)
			o += (size_t)snprintf(counts + o, sizeof(counts) - o, "%s%" PRIu64, k ? "," : "", fi->count[k]);
		snprintf(counts + o, sizeof(counts) - o, "}");
		o = (size_t)snprintf(vals, sizeof(vals), "{");
		for (size_t k = 0; k < 8; k++) {
			double v = fi->value[k];

			/* float8 reads NaN and Infinity in an array literal */
			if (isnan(v))
				o += (size_t)snprintf(vals + o, sizeof(vals) - o, "%sNaN", k ? "," : "");
			else if (isinf(v))
				o += (size_t)snprintf(vals + o, sizeof(vals) - o, "%s%sInfinity", k ? "," : "", v < 0 ? "-" : "");
			else
				o += (size_t)snprintf(vals + o, sizeof(vals) - o, "%s%.17g", k ? "," : "", v);
		}
		snprintf(vals + o, sizeof(vals) - o, "}");
		p_str(&p, run_id);
		p_u64(&p, i);
		p_str(&p, finding_kind_name(fi->kind));
		p_u64(&p, fi->config);
		p_str(&p, fi->config < m->nconfigs ? m->configs[fi->config].name : "");
		p_u64(&p, fi->other);
		p_str(&p, fi->subject ? fi->subject : "");
		p_str(&p, fi->trap ? "t" : "f");
		p_str(&p, fi->exceeds ? "t" : "f");
		p_str(&p, fi->shown ? "t" : "f");
		p_str(&p, counts);
		p_str(&p, vals);
		p_str(&p, fi->text ? fi->text : "");
		if (put(x, "INSERT INTO dutlab.findings (run_id, seq, kind, config_idx, config, other_idx, subject, "
			"trap, exceeds, shown, counts, vals, text) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)",
			&p, "inserting a finding", NULL, 0, NULL) < 0)
			return -EIO;
	}
	return 0;
}

static int push_doc(struct pusher *x, const char *run_id, const struct rundir_config *cf,
		    const struct rundir_rep *rp, size_t si)
{
	const struct rundir_step *st = &rp->steps[si];

	for (size_t d = 0; d < st->ndocs; d++) {
		_cleanup_(results_metrics_clear) struct results_metrics mt = { 0 };
		json_object *doc = st->docs[d].doc ? dut_result_json(st->docs[d].doc) : NULL;
		const char *tool, *workload;
		struct results_device dev;
		const struct dut_step_type *ty;
		struct params p = { 0 };
		char doc_id[32] = "";

		if (!doc)
			continue;
		tool = dut_result_tool_name(st->docs[d].doc);
		tool = tool ? tool : "";
		workload = results_workload(doc);
		p_str(&p, run_id);
		p_u64(&p, cf->index);
		p_u64(&p, rp->rep);
		p_u64(&p, si);
		p_str(&p, st->docs[d].file);
		p_str(&p, tool);
		p_str(&p, workload);
		p_str(&p, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
		if (put(x, "INSERT INTO dutlab.documents (run_id, config_idx, rep, step_idx, file, tool, workload, doc) "
			"VALUES ($1,$2,$3,$4,$5,$6,$7,$8) RETURNING doc_id", &p, "inserting a result document",
			doc_id, sizeof(doc_id), NULL) < 0)
			return -EIO;
		/* a step whose document describes the device (the kind's identify field) */
		if ((ty = dut_step_type_find(st->type)) && ty->identify && results_device_from_identify(doc, &dev) == 0) {
			p = (struct params){ 0 };
			p_str(&p, run_id);
			p_u64(&p, cf->index);
			p_u64(&p, rp->rep);
			p_u64(&p, si);
			p_str(&p, dev.model);
			p_str(&p, dev.serial);
			p_str(&p, dev.firmware);
			p_str(&p, dev.link);
			p_dbl(&p, dev.ceiling_bytes_per_s > 0 ? dev.ceiling_bytes_per_s : NAN);
			p_str(&p, dev.source);
			/* a step with two identify documents: the first names the device */
			if (put(x, "INSERT INTO dutlab.devices (run_id, config_idx, rep, step_idx, model, serial, firmware, "
				"link, ceiling_bytes_per_s, source) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) "
				"ON CONFLICT DO NOTHING", &p, "inserting a device", NULL, 0, NULL) < 0)
				return -EIO;
		}
		if (results_flatten(doc, &mt) < 0) {
			dut_error_set(x->err, "out of memory for the metrics of %s", st->docs[d].file);
			return -ENOMEM;
		}
		for (size_t k = 0; k < mt.n; k++) {
			p = (struct params){ 0 };
			p_str(&p, doc_id);
			p_str(&p, run_id);
			p_u64(&p, cf->index);
			p_u64(&p, rp->rep);
			p_str(&p, tool);
			p_str(&p, workload);
			p_str(&p, st->name);
			p_str(&p, mt.v[k].phase);
			p_str(&p, mt.v[k].name);
			p_dbl(&p, mt.v[k].value);
			p_str(&p, mt.v[k].unit);
			if (isnan(mt.v[k].value) || isinf(mt.v[k].value))
				continue;
			if (put(x, "INSERT INTO dutlab.results (doc_id, run_id, config_idx, rep, tool, workload, step, "
				"phase, metric, value, unit) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
				&p, "inserting a metric", NULL, 0, NULL) < 0)
				return -EIO;
		}
	}
	return 0;
}

static int push_rep(struct pusher *x, const char *run_id, const struct rundir_config *cf,
		    const struct rundir_rep *rp)
{
	struct params p = { 0 };

	p_str(&p, run_id);
	p_u64(&p, cf->index);
	p_u64(&p, rp->rep);
	p_str(&p, rp->status);
	p_str(&p, rp->filesystems ? rp->filesystems : "");
	if (put(x, "INSERT INTO dutlab.reps (run_id, config_idx, rep, status, filesystems) VALUES ($1,$2,$3,$4,$5)",
		&p, "inserting a repetition", NULL, 0, NULL) < 0)
		return -EIO;
	for (size_t s = 0; s < rp->nsteps; s++) {
		const struct rundir_step *st = &rp->steps[s];

		p = (struct params){ 0 };
		p_str(&p, run_id);
		p_u64(&p, cf->index);
		p_u64(&p, rp->rep);
		p_u64(&p, s);
		p_str(&p, st->name);
		p_str(&p, st->type);
		p_str(&p, st->tool);
		p_str(&p, st->status);
		p_int(&p, st->exit_code);
		p_opt(&p, st->started_at);
		p_u64(&p, st->wall_ns);
		p_dbl(&p, st->dutfs_cpu_s);
		if (put(x, "INSERT INTO dutlab.steps (run_id, config_idx, rep, step_idx, name, type, tool, status, "
			"exit_code, started_at, wall_ns, dutfs_cpu_s) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)",
			&p, "inserting a step", NULL, 0, NULL) < 0 ||
		    push_doc(x, run_id, cf, rp, s) < 0)
			return -EIO;
	}
	return 0;
}

static int push_run(struct pusher *x, const struct results_push *pu, const char *run_id, bool *present)
{
	const struct rundir_model *m = pu->m;
	struct params p = { 0 };
	char host_id[32] = "";

	p_str(&p, m->host.hostname);
	p_str(&p, m->host.kernel);
	p_str(&p, m->host.cpu_model);
	p_u64(&p, m->host.cpus);
	p_u64(&p, m->host.mem_bytes);
	/* DO UPDATE (of nothing) so that RETURNING names an existing host too */
	if (put(x, "INSERT INTO dutlab.hosts (hostname, kernel, cpu_model, cpus, mem_bytes) VALUES ($1,$2,$3,$4,$5) "
		"ON CONFLICT (hostname, kernel, cpu_model, cpus, mem_bytes) DO UPDATE SET hostname = EXCLUDED.hostname "
		"RETURNING host_id", &p, "inserting the host", host_id, sizeof(host_id), NULL) < 0)
		return -EIO;
	p = (struct params){ 0 };
	p_str(&p, run_id);
	p_str(&p, m->name);
	p_str(&p, m->description ? m->description : "");
	p_str(&p, m->source ? m->source : "");
	p_u64(&p, m->repetitions);
	p_str(&p, m->status);
	p_str(&p, m->started_at);
	p_opt(&p, m->finished_at);
	p_str(&p, host_id);
	p_str(&p, m->dir);
	p_str(&p, pu->pushed_by);
	p_str(&p, pu->manifest_json);
	if (put(x, "INSERT INTO dutlab.runs (run_id, experiment, description, source, repetitions, status, started_at, "
		"finished_at, host_id, rundir, pushed_by, manifest) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) "
		"ON CONFLICT (run_id) DO NOTHING RETURNING run_id", &p, "inserting the run", NULL, 0, present) < 0)
		return -EIO;
	if (*present)
		return 0;
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *cf = &m->configs[i];

		p = (struct params){ 0 };
		p_str(&p, run_id);
		p_u64(&p, cf->index);
		p_str(&p, cf->name);
		p_str(&p, cf->status);
		p_str(&p, cf->reason);
		p_str(&p, cf->view);
		p_str(&p, cf->filesystem);
		p_str(&p, cf->replica);
		p_u64(&p, cf->memory_budget_bytes);
		p_str(&p, cf->pg_version);
		if (put(x, "INSERT INTO dutlab.configs (run_id, config_idx, name, status, reason, view, filesystem, "
			"replica, memory_budget_bytes, pg_version) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
			&p, "inserting a configuration", NULL, 0, NULL) < 0)
			return -EIO;
		for (size_t k = 0; k < cf->nreps; k++)
			if (push_rep(x, run_id, cf, &cf->reps[k]) < 0)
				return -EIO;
	}
	return push_findings(x, run_id, m, pu->findings);
}

int results_db_push(PGconn *c, const struct results_push *pu, size_t *ret_rows, bool *ret_present,
		    char *ret_run_id, size_t id_len, struct dut_error *err)
{
	struct pusher x = { .c = c, .err = err };
	char run_id[1024];
	bool present = false;
	int r;

	if ((r = results_run_id(pu->m, run_id, sizeof(run_id), err)) < 0)
		return r;
	if ((r = rdb_exec(c, "BEGIN", "BEGIN", err)) < 0)
		return r;
	r = push_run(&x, pu, run_id, &present);
	if (r < 0 || present) {
		PQclear(PQexec(c, "ROLLBACK"));
		if (r < 0)
			return r;
		x.rows = 0;
	} else if ((r = rdb_exec(c, "COMMIT", "COMMIT", err)) < 0) {
		return r;
	}
	*ret_rows = x.rows;
	*ret_present = present;
	snprintf(ret_run_id, id_len, "%s", run_id);
	return 0;
}
