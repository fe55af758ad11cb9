/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>

#include "fuse/shape/engine.h"

struct shape_engine {
	struct shape_rules *rules;
	struct shape_journal *journal;
	pthread_mutex_t lock;
	bool crashed;                   /* lock */
	uint64_t crashes;               /* lock */
	struct shape_discard *plan;     /* lock */
	size_t nplan;                   /* lock */
	int plan_err;                   /* lock */
};

int shape_engine_new(struct shape_rules *rules, struct shape_engine **ret)
{
	struct shape_engine *e = calloc(1, sizeof(*e));
	uint64_t seed = 1;
	int r;

	if (!e)
		return -ENOMEM;
	for (unsigned i = 0; i < rules->nfaults; i++) {
		if (rules->faults[i]->p.type == SHAPE_FAULT_UNSYNCED) {
			seed = rules->faults[i]->p.seed;
			break;
		}
	}
	r = shape_journal_new(seed, &e->journal);
	if (r < 0) {
		free(e);
		return r;
	}
	pthread_mutex_init(&e->lock, NULL);
	e->rules = rules;
	*ret = e;
	return 0;
}

void shape_engine_free(struct shape_engine *e)
{
	if (!e)
		return;
	shape_journal_free(e->journal);
	shape_rules_free(e->rules);
	free(e->plan);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

bool shape_engine_crashed(struct shape_engine *e)
{
	bool c;

	pthread_mutex_lock(&e->lock);
	c = e->crashed;
	pthread_mutex_unlock(&e->lock);
	return c;
}

/* Under e->lock. */
static int crash_locked(struct shape_engine *e)
{
	if (e->crashed)
		return -EALREADY;
	e->crashed = true;
	e->crashes++;
	free(e->plan);
	e->plan = NULL;
	e->nplan = 0;
	e->plan_err = shape_journal_crash(e->journal, &e->plan, &e->nplan);
	return 0;
}

int shape_engine_crash(struct shape_engine *e)
{
	int r;

	pthread_mutex_lock(&e->lock);
	r = crash_locked(e);
	pthread_mutex_unlock(&e->lock);
	return r;
}

int shape_engine_drop_unsynced(struct shape_engine *e, uint64_t file_key,
			       struct shape_discard **ret, size_t *ret_n)
{
	return shape_journal_drop_unsynced(e->journal, file_key, ret, ret_n);
}

int shape_engine_recover(struct shape_engine *e)
{
	int r = 0;

	pthread_mutex_lock(&e->lock);
	if (!e->crashed)
		r = -EINVAL;
	e->crashed = false;
	pthread_mutex_unlock(&e->lock);
	return r;
}

void shape_engine_take_plan(struct shape_engine *e, struct shape_discard **ret, size_t *ret_n)
{
	pthread_mutex_lock(&e->lock);
	*ret = e->plan;
	*ret_n = e->nplan;
	e->plan = NULL;
	e->nplan = 0;
	pthread_mutex_unlock(&e->lock);
}

static const struct shape_fault *unsynced_fault(const struct shape_rule *r)
{
	for (unsigned i = 0; i < r->nfaults; i++) {
		if (r->faults[i]->p.type == SHAPE_FAULT_UNSYNCED)
			return r->faults[i];
	}
	return NULL;
}

void shape_engine_submit(struct shape_engine *e, const struct shape_io *io, struct shape_verdict *ret)
{
	struct shape_verdict v = { .done_ns = io->now_ns, .len = io->len };
	struct shape_req req = { io->op, io->file_key, io->offset, io->len, io->now_ns };
	struct shape_model_result mr;
	struct shape_rule *rule;
	const struct shape_fault *uf;
	struct shape_fault_effect effect = { 0 };
	bool fired = false;
	bool state_op = io->op == SHAPE_OP_TRUNCATE || io->op == SHAPE_OP_PUNCH_HOLE ||
			io->op == SHAPE_OP_UNLINK;

	pthread_mutex_lock(&e->lock);
	if (e->crashed) {
		pthread_mutex_unlock(&e->lock);
		v.err = -EIO;
		*ret = v;
		return;
	}
	pthread_mutex_unlock(&e->lock);

	rule = v.rule = shape_rules_match(e->rules, io->cls, io->path, io->op);
	/* fill levels follow every truncate, hole and unlink, matched or not */
	if (state_op) {
		for (unsigned i = 0; i < e->rules->nmodels; i++) {
			struct shape_model *m = e->rules->models[i];

			if (!rule || m != rule->model)
				shape_model_submit(m, &req, &mr);
		}
	}
	if (!rule) {
		*ret = v;
		return;
	}
	atomic_fetch_add(&rule->matched, 1);

	/* every fault sees every matched request (so nth/every count alike);
	 * the first that fires, in the rule's order, decides the effect */
	for (unsigned i = 0; i < rule->nfaults; i++) {
		struct shape_fault_effect fx;

		if (!shape_fault_decide(rule->faults[i], &req, &fx))
			continue;
		atomic_fetch_add(&rule->faults_fired, 1);
		if (fx.crash) {
			pthread_mutex_lock(&e->lock);
			crash_locked(e);
			pthread_mutex_unlock(&e->lock);
		}
		if (!fired) {
			fired = true;
			effect = fx;
		}
	}
	if (fired && effect.err) {
		v.err = effect.err;
		*ret = v;
		return;
	}
	if (fired) {
		v.len = effect.len;
		req.len = effect.len;
	}

	if (rule->model) {
		shape_model_submit(rule->model, &req, &mr);
		v.done_ns = mr.done_ns;
		v.skip_sync = mr.skip_sync;
		atomic_fetch_add(&rule->delay_ns, v.done_ns - io->now_ns);
	}
	uf = io->op == SHAPE_OP_WRITE ? unsynced_fault(rule) : NULL;
	if (uf) {
		struct shape_loss loss = { uf->p.lose_pct, uf->p.torn, uf->p.sector, uf->p.grain };

		/* too many writes in flight: this one is not journaled (it will persist) */
		v.journaled = shape_journal_write_begin(e->journal, io->file_key, io->offset, v.len,
							&loss, &v.token) == 0;
	}
	*ret = v;
}

void shape_engine_complete(struct shape_engine *e, const struct shape_io *io,
			   const struct shape_verdict *v, int64_t result)
{
	if (v->journaled)
		shape_journal_write_end(e->journal, v->token, result > 0 ? (uint64_t)result : 0);
	if (result < 0 || v->err)
		return;
	switch (io->op) {
	case SHAPE_OP_FSYNC:
	case SHAPE_OP_FDATASYNC:
		/* with barriers off the data never reached stable storage */
		if (!v->skip_sync)
			shape_journal_sync(e->journal, io->file_key);
		break;
	case SHAPE_OP_TRUNCATE:
		shape_journal_truncate(e->journal, io->file_key, io->offset);
		break;
	case SHAPE_OP_UNLINK:
		shape_journal_forget(e->journal, io->file_key);
		break;
	default:
		break;
	}
}

static struct json_object *u64_json(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

struct json_object *shape_engine_stats_json(struct shape_engine *e)
{
	struct json_object *o = json_object_new_object(), *rules = json_object_new_array(),
			   *models = json_object_new_array(), *faults = json_object_new_array();
	struct shape_rules *rs = e->rules;

	if (!o || !rules || !models || !faults) {
		json_object_put(o);
		json_object_put(rules);
		json_object_put(models);
		json_object_put(faults);
		return NULL;
	}
	pthread_mutex_lock(&e->lock);
	json_object_object_add(o, "crashed", json_object_new_boolean(e->crashed));
	json_object_object_add(o, "crashes", u64_json(e->crashes));
	pthread_mutex_unlock(&e->lock);
	json_object_object_add(o, "source", json_object_new_string(rs->source));
	for (unsigned i = 0; i < rs->nrules; i++) {
		struct shape_rule *r = &rs->rules[i];
		struct json_object *ro = json_object_new_object();

		json_object_object_add(ro, "name", json_object_new_string(r->name));
		json_object_object_add(ro, "model", r->model ? json_object_new_string(r->model->name) : NULL);
		json_object_object_add(ro, "matched", u64_json(atomic_load(&r->matched)));
		json_object_object_add(ro, "delay_ns", u64_json(atomic_load(&r->delay_ns)));
		json_object_object_add(ro, "faults_fired", u64_json(atomic_load(&r->faults_fired)));
		json_object_array_add(rules, ro);
	}
	for (unsigned i = 0; i < rs->nmodels; i++)
		json_object_array_add(models, shape_model_stats_json(rs->models[i]));
	for (unsigned i = 0; i < rs->nfaults; i++) {
		struct shape_fault *f = rs->faults[i];
		struct json_object *fo = json_object_new_object();

		json_object_object_add(fo, "name", json_object_new_string(f->name));
		json_object_object_add(fo, "type", json_object_new_string(shape_fault_type_name(f->p.type)));
		pthread_mutex_lock(&f->lock);
		json_object_object_add(fo, "seen", u64_json(f->seen));
		json_object_object_add(fo, "fired", u64_json(f->fired));
		pthread_mutex_unlock(&f->lock);
		json_object_array_add(faults, fo);
	}
	json_object_object_add(o, "rules", rules);
	json_object_object_add(o, "models", models);
	json_object_object_add(o, "faults", faults);
	return o;
}
