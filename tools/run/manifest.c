/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.json of a run directory (pure): the run state as the document
 * the contract "Run directory of dutlab run" describes.  The runner writes
 * it atomically after every step, so a reader (dutlab report, a person
 * after Ctrl-C) always sees a whole document.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pgbin.h"
#include "lib/redact.h"
#include "tools/run/runner.h"

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void add_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	/* the manifest is read by others: no password of a conninfo in it */
	for (size_t i = 0; v && v[i]; i++) {
		char *r = dut_redact_arg(v[i]);

		json_object_array_add(a, json_object_new_string(r ? r : "***"));
		free(r);
	}
	return a;
}

static json_object *list_json(const struct run_argv_list *l)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, json_object_new_string(l->v[i]));
	return a;
}

static json_object *step_json(const struct dut_step *s, const struct run_step_state *ss)
{
	json_object *o = json_object_new_object();

	add_str(o, "name", s->name);
	add_str(o, "type", s->type->name);
	add_str(o, "tool", s->type->tool);
	add_str(o, "mark", s->mark ? s->mark : s->name);
	add_int(o, "repeat", s->repeat);
	json_object_object_add(o, "argv", strv_json(ss->argv));
	add_str(o, "status", run_step_status_name(ss->status));
	if (ss->exit_code >= 0)
		add_int(o, "exit_code", ss->exit_code);
	else
		json_object_object_add(o, "exit_code", NULL);
	if (ss->started_at[0])
		add_str(o, "started_at", ss->started_at);
	add_int(o, "wall_ns", (int64_t)ss->wall_ns);
	if (ss->dutfs_cpu_known)
		json_object_object_add(o, "dutfs_cpu_s", json_object_new_double(ss->dutfs_cpu_s));
	json_object_object_add(o, "results", list_json(&ss->results));
	if (ss->device)
		json_object_object_add(o, "device", json_object_get(ss->device));
	json_object_object_add(o, "logs", list_json(&ss->logs));
	return o;
}

static void add_bytes(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, v ? json_object_new_int64((int64_t)v) : NULL);
}

/* How much of the database fits in the server's memory: null where unknown. */
static json_object *rep_memory_json(const struct run_rep_memory *m)
{
	json_object *o = json_object_new_object();

	add_bytes(o, "budget_bytes", m->budget_bytes);
	add_bytes(o, "shared_buffers_bytes", m->shared_buffers_bytes);
	add_bytes(o, "peak_bytes", m->peak_bytes);
	add_bytes(o, "database_bytes", m->database_bytes);
	json_object_object_add(o, "database_per_budget", m->budget_bytes && m->database_bytes ?
			       json_object_new_double((double)m->database_bytes / (double)m->budget_bytes) : NULL);
	return o;
}

static json_object *rep_json(const struct run_state *st, const struct run_cfg_state *cs,
			     const struct run_rep_state *rs)
{
	json_object *o = json_object_new_object(), *steps = json_object_new_array();
	json_object *arts = json_object_new_object();
	char dir[512];

	add_int(o, "rep", rs->rep);
	snprintf(dir, sizeof(dir), "%s/rep%u", cs->dir, rs->rep);
	add_str(o, "dir", dir);
	add_str(o, "status", run_status_name(rs->status));
	if (rs->reason)
		add_str(o, "reason", rs->reason);
	for (size_t i = 0; i < st->exp->nsteps; i++)
		json_object_array_add(steps, step_json(&st->exp->steps[i], &rs->steps[i]));
	json_object_object_add(o, "steps", steps);
	for (size_t i = 0; i < rs->nartifacts; i++)
		add_str(arts, rs->artifacts[i].key, rs->artifacts[i].file);
	json_object_object_add(o, "artifacts", arts);
	json_object_object_add(o, "memory", rep_memory_json(&rs->mem));
	if (rs->ntargets) {
		json_object *tg = json_object_new_array();

		for (size_t i = 0; i < rs->ntargets; i++) {
			const struct run_rep_target *t = &rs->targets[i];
			json_object *x = json_object_new_object();

			add_str(x, "name", t->name);
			add_str(x, "path", t->path);
			json_object_object_add(x, "dir", t->dir ? json_object_new_string(t->dir) : NULL);
			json_object_object_add(x, "filesystem", t->filesystem ? json_object_new_string(t->filesystem) : NULL);
			json_object_object_add(x, "dutfs", json_object_new_boolean(t->dutfs));
			json_object_array_add(tg, x);
		}
		json_object_object_add(o, "targets", tg);
	}
	return o;
}

static json_object *config_json(const struct run_state *st, size_t c)
{
	const struct dut_config *cfg = &st->plan->configs[c];
	const struct run_cfg_state *cs = &st->cfgs[c];
	json_object *o = json_object_new_object(), *dims = json_object_new_object();
	json_object *reps = json_object_new_array(), *sets = json_object_new_object();

	add_int(o, "index", cfg->index);
	add_str(o, "name", cfg->name);
	add_str(o, "dir", cs->dir);
	for (size_t d = 0; d < st->exp->ndims; d++)
		add_str(dims, st->exp->dims[d].key, cfg->dim_values[d]);
	json_object_object_add(o, "dims", dims);
	add_str(o, "view", dut_view_name(cfg->view));
	json_object_object_add(o, "trace", json_object_new_boolean(cfg->trace && cfg->view != DUT_VIEW_OFF));
	add_str(o, "filesystem", cfg->filesystem ? cfg->filesystem->name : "none");
	add_str(o, "replica", dut_replica_mode_name(cfg->replica));
	if (cfg->shape)
		add_str(o, "shape", cfg->shape);
	if (cfg->tables_on)
		add_str(o, "tables_on", cfg->tables_on);
	if (cfg->indexes_on)
		add_str(o, "indexes_on", cfg->indexes_on);
	for (size_t i = 0; i < cfg->nsettings; i++)
		add_str(sets, cfg->settings[i].name, cfg->settings[i].value);
	json_object_object_add(o, "settings", sets);
	if (cs->pg.major) {
		json_object *pg = json_object_new_object();

		add_int(pg, "major", cs->pg.major);
		add_str(pg, "version", cs->pg.version);
		add_str(pg, "bindir", cs->pg.bindir);
		/* BLCKSZ, XLOG_BLCKSZ: a dutlab pg build's, else Debian's 8 kB */
		add_int(pg, "block_size_kb", cs->pg.block_kb ? cs->pg.block_kb : DUT_PG_DEFAULT_BLOCK_KB);
		add_int(pg, "wal_block_size_kb", cs->pg.wal_block_kb ? cs->pg.wal_block_kb : DUT_PG_DEFAULT_BLOCK_KB);
		json_object_object_add(o, "postgres", pg);
	} else {
		/* no cluster, or not found (then "reason" says why) */
		json_object_object_add(o, "postgres", NULL);
	}
	json_object_object_add(o, "memory_budget_bytes", st->exp->pg_memory_bytes && cfg->needs_cluster ?
			       json_object_new_int64((int64_t)st->exp->pg_memory_bytes) : NULL);
	add_int(o, "est_ns", (int64_t)cfg->est_ns);
	add_str(o, "status", run_status_name(cs->status));
	if (cs->reason)
		add_str(o, "reason", cs->reason);
	for (unsigned r = 0; r < st->exp->repetitions; r++)
		json_object_array_add(reps, rep_json(st, cs, &cs->reps[r]));
	json_object_object_add(o, "reps", reps);
	return o;
}

json_object *run_manifest_json(const struct run_state *st)
{
	const struct dut_experiment *e = st->exp;
	json_object *o = json_object_new_object(), *ex = json_object_new_object();
	json_object *dims = json_object_new_array(), *cfgs = json_object_new_array();

	if (!o || !ex || !dims || !cfgs) {
		json_object_put(o);
		json_object_put(ex);
		json_object_put(dims);
		json_object_put(cfgs);
		return NULL;
	}
	add_str(o, "schema", "dutlab-run");
	add_int(o, "schema_version", 1);
	add_str(ex, "name", e->name);
	if (e->description)
		add_str(ex, "description", e->description);
	add_str(ex, "source", st->source);
	add_int(ex, "repetitions", e->repetitions);
	add_str(ex, "order", e->order == DUT_ORDER_INTERLEAVED ? "interleaved" : "sequential");
	add_int(ex, "est_ns", (int64_t)st->plan->est_ns);
	json_object_object_add(o, "experiment", ex);
	add_str(o, "started_at", st->started_at);
	if (st->finished_at[0])
		add_str(o, "finished_at", st->finished_at);
	add_str(o, "status", run_status_name(st->status));
	if (st->have_host) {
		json_object *h = json_object_new_object();

		add_str(h, "hostname", st->host.hostname);
		add_str(h, "kernel", st->host.kernel);
		add_str(h, "cpu_model", st->host.cpu_model);
		add_int(h, "cpus", st->host.cpus);
		add_int(h, "mem_bytes", (int64_t)st->host.mem_bytes);
		json_object_object_add(o, "host", h);
	}
	for (size_t d = 0; d < e->ndims; d++) {
		json_object *dim = json_object_new_object(), *vals = json_object_new_array();

		add_str(dim, "key", e->dims[d].key);
		for (size_t v = 0; v < e->dims[d].nvalues; v++)
			json_object_array_add(vals, json_object_new_string(e->dims[d].values[v]));
		json_object_object_add(dim, "values", vals);
		json_object_array_add(dims, dim);
	}
	json_object_object_add(o, "dimensions", dims);
	for (size_t c = 0; c < st->plan->nconfigs; c++)
		json_object_array_add(cfgs, config_json(st, c));
	json_object_object_add(o, "configs", cfgs);
	return o;
}

/* ---- replica.json ---- */

int run_replica_add(json_object **doc, const char *mode, const char *step, const char *result_file,
		    json_object *result)
{
	json_object *phases, *steps;
	size_t added = 0;

	if (!json_object_object_get_ex(result, "phases", &phases) || !json_object_is_type(phases, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(phases); i++) {
		json_object *ph = json_object_array_get_idx(phases, i), *series, *lag, *name, *e;

		if (!json_object_object_get_ex(ph, "series", &series) ||
		    !json_object_object_get_ex(series, "replica_lag", &lag))
			continue;
		if (!*doc) {
			/* made on the first series: no replica.json without lag samples */
			*doc = json_object_new_object();
			if (!*doc)
				return -ENOMEM;
			add_str(*doc, "schema", "dutlab-replica");
			add_int(*doc, "schema_version", 1);
			add_str(*doc, "mode", mode);
			json_object_object_add(*doc, "steps", json_object_new_array());
		}
		if (!json_object_object_get_ex(*doc, "steps", &steps))
			return -EINVAL;
		e = json_object_new_object();
		add_str(e, "step", step);
		add_str(e, "result", result_file);
		add_str(e, "phase", json_object_object_get_ex(ph, "name", &name) ? json_object_get_string(name) : "");
		json_object_object_add(e, "replica_lag", json_object_get(lag));
		json_object_array_add(steps, e);
		added++;
	}
	return (int)added;
}
