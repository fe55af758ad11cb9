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
#include "lib/run_manifest.h"
#include "lib/trace.h"
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

	add_str(o, DUT_RM_NAME, s->name);
	add_str(o, DUT_RM_TYPE, s->type->name);
	add_str(o, DUT_RM_TOOL, s->type->tool);
	add_str(o, DUT_RM_MARK, s->mark ? s->mark : s->name);
	add_int(o, DUT_RM_REPEAT, s->repeat);
	json_object_object_add(o, DUT_RM_ARGV, strv_json(ss->argv));
	add_str(o, DUT_RM_STATUS, run_step_status_name(ss->status));
	if (ss->exit_code >= 0)
		add_int(o, DUT_RM_EXIT_CODE, ss->exit_code);
	else
		json_object_object_add(o, DUT_RM_EXIT_CODE, NULL);
	if (ss->started_at[0])
		add_str(o, DUT_RM_STARTED_AT, ss->started_at);
	add_int(o, DUT_RM_WALL_NS, (int64_t)ss->wall_ns);
	if (ss->dutfs_cpu_known)
		json_object_object_add(o, DUT_RM_DUTFS_CPU_S, json_object_new_double(ss->dutfs_cpu_s));
	json_object_object_add(o, DUT_RM_RESULTS, list_json(&ss->results));
	if (ss->device)
		json_object_object_add(o, DUT_RM_DEVICE, json_object_get(ss->device));
	json_object_object_add(o, DUT_RM_LOGS, list_json(&ss->logs));
	return o;
}

static void add_bytes(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, v ? json_object_new_int64((int64_t)v) : NULL);
}

/* How much of the database fits in the server's memory: null where unknown. */
static json_object *repeat_memory_json(const struct run_rep_memory *m)
{
	json_object *o = json_object_new_object();

	add_bytes(o, DUT_RM_BUDGET_BYTES, m->budget_bytes);
	add_bytes(o, DUT_RM_SHARED_BUFFERS_BYTES, m->shared_buffers_bytes);
	add_bytes(o, DUT_RM_PEAK_BYTES, m->peak_bytes);
	add_bytes(o, DUT_RM_DATABASE_BYTES, m->database_bytes);
	json_object_object_add(o, DUT_RM_DATABASE_PER_BUDGET, m->budget_bytes && m->database_bytes ?
			       json_object_new_double((double)m->database_bytes / (double)m->budget_bytes) : NULL);
	return o;
}

static json_object *repeat_json(const struct run_state *st, const struct run_cfg_state *cs,
				const struct run_rep_state *rs)
{
	json_object *o = json_object_new_object(), *steps = json_object_new_array();
	json_object *arts = json_object_new_object();
	char dir[512];

	add_int(o, DUT_RM_REP, rs->rep);
	snprintf(dir, sizeof(dir), "%s/rep%u", cs->dir, rs->rep);
	add_str(o, DUT_RM_DIR, dir);
	add_str(o, DUT_RM_STATUS, run_status_name(rs->status));
	if (rs->reason)
		add_str(o, DUT_RM_REASON, rs->reason);
	for (size_t i = 0; i < st->exp->nsteps; i++)
		json_object_array_add(steps, step_json(&st->exp->steps[i], &rs->steps[i]));
	json_object_object_add(o, DUT_RM_STEPS, steps);
	for (size_t i = 0; i < rs->nartifacts; i++)
		add_str(arts, rs->artifacts[i].key, rs->artifacts[i].file);
	json_object_object_add(o, DUT_RM_ARTIFACTS, arts);
	json_object_object_add(o, DUT_RM_MEMORY, repeat_memory_json(&rs->mem));
	if (rs->ntargets) {
		json_object *tg = json_object_new_array();

		for (size_t i = 0; i < rs->ntargets; i++) {
			const struct run_rep_target *t = &rs->targets[i];
			json_object *x = json_object_new_object();

			add_str(x, DUT_RM_NAME, t->name);
			add_str(x, DUT_RM_PATH, t->path);
			json_object_object_add(x, DUT_RM_DIR, t->dir ? json_object_new_string(t->dir) : NULL);
			json_object_object_add(x, DUT_RM_FILESYSTEM, t->filesystem ? json_object_new_string(t->filesystem) : NULL);
			json_object_object_add(x, DUT_RM_DUTFS, json_object_new_boolean(t->dutfs));
			json_object_array_add(tg, x);
		}
		json_object_object_add(o, DUT_RM_TARGETS, tg);
	}
	return o;
}

static json_object *config_json(const struct run_state *st, size_t c)
{
	const struct dut_config *cfg = &st->plan->configs[c];
	const struct run_cfg_state *cs = &st->cfgs[c];
	json_object *o = json_object_new_object(), *dims = json_object_new_object();
	json_object *reps = json_object_new_array(), *sets = json_object_new_object();

	add_int(o, DUT_RM_INDEX, cfg->index);
	add_str(o, DUT_RM_NAME, cfg->name);
	add_str(o, DUT_RM_DIR, cs->dir);
	for (size_t d = 0; d < st->exp->ndims; d++)
		add_str(dims, st->exp->dims[d].key, cfg->dim_values[d]);
	json_object_object_add(o, DUT_RM_DIMS, dims);
	add_str(o, DUT_RM_VIEW, dut_view_name(cfg->view));
	json_object_object_add(o, DUT_RM_TRACE, json_object_new_boolean(cfg->trace && cfg->view != DUT_VIEW_OFF));
	if (cfg->trace && cfg->view != DUT_VIEW_OFF && st->exp->trace_max_bytes) {
		/* dutfs --trace-max: each trace rotated within this size (docs/soak.md) */
		add_int(o, DUT_RM_TRACE_MAX_BYTES, (int64_t)st->exp->trace_max_bytes);
		add_int(o, DUT_RM_TRACE_SEGMENTS, st->exp->trace_segments ? st->exp->trace_segments
								   : DUT_TRACE_SEGMENTS_DEFAULT);
	}
	add_str(o, DUT_RM_FILESYSTEM, cfg->filesystem ? cfg->filesystem->name : "none");
	add_str(o, DUT_RM_REPLICA, dut_replica_mode_name(cfg->replica));
	if (cfg->shape)
		add_str(o, DUT_RM_SHAPE, cfg->shape);
	if (cfg->tables_on)
		add_str(o, DUT_RM_TABLES_ON, cfg->tables_on);
	if (cfg->indexes_on)
		add_str(o, DUT_RM_INDEXES_ON, cfg->indexes_on);
	for (size_t i = 0; i < cfg->nsettings; i++)
		add_str(sets, cfg->settings[i].name, cfg->settings[i].value);
	json_object_object_add(o, DUT_RM_SETTINGS, sets);
	if (cs->pg.major) {
		json_object *pg = json_object_new_object();

		add_int(pg, DUT_RM_MAJOR, cs->pg.major);
		add_str(pg, DUT_RM_VERSION, cs->pg.version);
		add_str(pg, DUT_RM_BINDIR, cs->pg.bindir);
		/* BLCKSZ, XLOG_BLCKSZ: a dutlab pg build's, else Debian's 8 kB */
		add_int(pg, DUT_RM_BLOCK_SIZE_KB, cs->pg.block_kb ? cs->pg.block_kb : DUT_PG_DEFAULT_BLOCK_KB);
		add_int(pg, DUT_RM_WAL_BLOCK_SIZE_KB, cs->pg.wal_block_kb ? cs->pg.wal_block_kb : DUT_PG_DEFAULT_BLOCK_KB);
		json_object_object_add(o, DUT_RM_POSTGRES, pg);
	} else {
		/* no cluster, or not found (then "reason" says why) */
		json_object_object_add(o, DUT_RM_POSTGRES, NULL);
	}
	json_object_object_add(o, DUT_RM_MEMORY_BUDGET_BYTES, st->exp->pg_memory_bytes && cfg->needs_cluster ?
			       json_object_new_int64((int64_t)st->exp->pg_memory_bytes) : NULL);
	add_int(o, DUT_RM_EST_NS, (int64_t)cfg->est_ns);
	add_str(o, DUT_RM_STATUS, run_status_name(cs->status));
	if (cs->reason)
		add_str(o, DUT_RM_REASON, cs->reason);
	for (unsigned r = 0; r < st->exp->repetitions; r++)
		json_object_array_add(reps, repeat_json(st, cs, &cs->reps[r]));
	json_object_object_add(o, DUT_RM_REPS, reps);
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
	add_str(o, DUT_RM_SCHEMA, DUT_RUN_MANIFEST_SCHEMA);
	add_int(o, DUT_RM_SCHEMA_VERSION, DUT_RUN_MANIFEST_VERSION);
	add_str(ex, DUT_RM_NAME, e->name);
	if (e->description)
		add_str(ex, DUT_RM_DESCRIPTION, e->description);
	add_str(ex, DUT_RM_SOURCE, st->source);
	add_int(ex, DUT_RM_REPETITIONS, e->repetitions);
	add_str(ex, DUT_RM_ORDER, e->order == DUT_ORDER_INTERLEAVED ? "interleaved" : "sequential");
	add_int(ex, DUT_RM_EST_NS, (int64_t)st->plan->est_ns);
	if (e->progress_ns)
		add_int(ex, DUT_RM_PROGRESS_NS, (int64_t)e->progress_ns);
	if (e->report_every_ns)
		add_int(ex, DUT_RM_REPORT_EVERY_NS, (int64_t)e->report_every_ns);
	json_object_object_add(o, DUT_RM_EXPERIMENT, ex);
	add_str(o, DUT_RM_STARTED_AT, st->started_at);
	if (st->finished_at[0])
		add_str(o, DUT_RM_FINISHED_AT, st->finished_at);
	add_str(o, DUT_RM_STATUS, run_status_name(st->status));
	if (st->have_host) {
		json_object *h = json_object_new_object();

		add_str(h, DUT_RM_HOSTNAME, st->host.hostname);
		add_str(h, DUT_RM_KERNEL, st->host.kernel);
		add_str(h, DUT_RM_CPU_MODEL, st->host.cpu_model);
		add_int(h, DUT_RM_CPUS, st->host.cpus);
		add_int(h, DUT_RM_MEM_BYTES, (int64_t)st->host.mem_bytes);
		json_object_object_add(o, DUT_RM_HOST, h);
	}
	for (size_t d = 0; d < e->ndims; d++) {
		json_object *dim = json_object_new_object(), *vals = json_object_new_array();

		add_str(dim, DUT_RM_KEY, e->dims[d].key);
		for (size_t v = 0; v < e->dims[d].nvalues; v++)
			json_object_array_add(vals, json_object_new_string(e->dims[d].values[v]));
		json_object_object_add(dim, DUT_RM_VALUES, vals);
		json_object_array_add(dims, dim);
	}
	json_object_object_add(o, DUT_RM_DIMENSIONS, dims);
	for (size_t c = 0; c < st->plan->nconfigs; c++)
		json_object_array_add(cfgs, config_json(st, c));
	json_object_object_add(o, DUT_RM_CONFIGS, cfgs);
	return o;
}

/* ---- replica.json ---- */

int run_replica_add(json_object **doc, const char *mode, const char *step, const char *result_file,
		    json_object *result)
{
	json_object *phases, *steps;
	size_t added = 0;

	if (!json_object_object_get_ex(result, DUT_RM_PHASES, &phases) || !json_object_is_type(phases, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(phases); i++) {
		json_object *ph = json_object_array_get_idx(phases, i), *series, *lag, *name, *e;

		if (!json_object_object_get_ex(ph, DUT_RM_SERIES, &series) ||
		    !json_object_object_get_ex(series, DUT_RM_REPLICA_LAG, &lag))
			continue;
		if (!*doc) {
			/* made on the first series: no replica.json without lag samples */
			*doc = json_object_new_object();
			if (!*doc)
				return -ENOMEM;
			add_str(*doc, DUT_RM_SCHEMA, "dutlab-replica");
			add_int(*doc, DUT_RM_SCHEMA_VERSION, 1);
			add_str(*doc, "mode", mode);
			json_object_object_add(*doc, DUT_RM_STEPS, json_object_new_array());
		}
		if (!json_object_object_get_ex(*doc, DUT_RM_STEPS, &steps))
			return -EINVAL;
		e = json_object_new_object();
		add_str(e, DUT_RM_STEP, step);
		add_str(e, DUT_RM_RESULT, result_file);
		add_str(e, DUT_RM_PHASE, json_object_object_get_ex(ph, DUT_RM_NAME, &name) ? json_object_get_string(name) : "");
		json_object_object_add(e, DUT_RM_REPLICA_LAG, json_object_get(lag));
		json_object_array_add(steps, e);
		added++;
	}
	return (int)added;
}
