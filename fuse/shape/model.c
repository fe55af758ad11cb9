/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of ops and classes, the model registry, parameter parsing from
 * text to a model's parameter struct, and the thread-safe model wrapper.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuse/shape/shape.h"
#include "lib/trace.h"
#include "lib/units.h"

static const char *const op_names[SHAPE_OP_COUNT] = {
	[SHAPE_OP_READ] = "read",           [SHAPE_OP_WRITE] = "write",
	[SHAPE_OP_FSYNC] = "fsync",         [SHAPE_OP_FDATASYNC] = "fdatasync",
	[SHAPE_OP_OPEN] = "open",           [SHAPE_OP_CREATE] = "create",
	[SHAPE_OP_RELEASE] = "release",     [SHAPE_OP_FLUSH] = "flush",
	[SHAPE_OP_TRUNCATE] = "truncate",   [SHAPE_OP_FALLOCATE] = "fallocate",
	[SHAPE_OP_PUNCH_HOLE] = "punch",    [SHAPE_OP_UNLINK] = "unlink",
	[SHAPE_OP_RENAME] = "rename",
};

const char *shape_op_name(enum shape_op op)
{
	return (unsigned)op < SHAPE_OP_COUNT ? op_names[op] : NULL;
}

int shape_op_from_name(const char *name, enum shape_op *ret)
{
	for (unsigned i = 0; i < SHAPE_OP_COUNT; i++) {
		if (strcmp(name, op_names[i]) == 0) {
			*ret = (enum shape_op)i;
			return 0;
		}
	}
	return -EINVAL;
}

int shape_op_from_trace(unsigned trace_op, enum shape_op *ret)
{
	static const struct { unsigned t; enum shape_op s; } map[] = {
		{ DUT_OP_READ, SHAPE_OP_READ },         { DUT_OP_WRITE, SHAPE_OP_WRITE },
		{ DUT_OP_FSYNC, SHAPE_OP_FSYNC },       { DUT_OP_FDATASYNC, SHAPE_OP_FDATASYNC },
		{ DUT_OP_OPEN, SHAPE_OP_OPEN },         { DUT_OP_CREATE, SHAPE_OP_CREATE },
		{ DUT_OP_RELEASE, SHAPE_OP_RELEASE },   { DUT_OP_TRUNCATE, SHAPE_OP_TRUNCATE },
		{ DUT_OP_FALLOCATE, SHAPE_OP_FALLOCATE }, { DUT_OP_PUNCH_HOLE, SHAPE_OP_PUNCH_HOLE },
		{ DUT_OP_UNLINK, SHAPE_OP_UNLINK },     { DUT_OP_RENAME, SHAPE_OP_RENAME },
		{ DUT_OP_FLUSH, SHAPE_OP_FLUSH },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].t == trace_op) {
			*ret = map[i].s;
			return 0;
		}
	}
	return -EINVAL;
}

const char *shape_class_name(enum shape_class cls)
{
	return dut_io_class_name((enum dut_io_class)cls);
}

int shape_class_from_name(const char *name, enum shape_class *ret)
{
	enum dut_io_class c;
	int r = dut_io_class_from_name(name, &c);

	if (r == 0)
		*ret = (enum shape_class)c;
	return r;
}

/* ---- registry ---- */

static const struct shape_model_ops *const model_table[] = {
	&shape_model_fixed, &shape_model_bandwidth, &shape_model_queue,
	&shape_model_hdd, &shape_model_ssd,
};

const struct shape_model_ops *shape_model_ops_find(const char *type)
{
	for (size_t i = 0; i < sizeof(model_table) / sizeof(model_table[0]); i++) {
		if (strcmp(model_table[i]->type, type) == 0)
			return model_table[i];
	}
	return NULL;
}

const char *shape_model_types(void)
{
	return "fixed, bandwidth, queue, hdd, ssd";
}

/* ---- parameter parsing ---- */

#define CM(f) offsetof(struct shape_common, f)
static const struct shape_param common_params[] = {
	{ "fsync_latency", SHAPE_P_DURATION, CM(fsync_ns), "0", false, 0, 10e9,
	  "cost of a cache flush after the device drained" },
	{ "barriers", SHAPE_P_BOOL, CM(barriers), "on", false, 0, 1,
	  "whether fsync reaches the device (off: fsync returns at once)" },
	{ NULL },
};
#define N_COMMON 2u

static void format_bound(enum shape_ptype t, double v, char *buf, size_t len)
{
	switch (t) {
	case SHAPE_P_DURATION:
		dut_format_duration((uint64_t)v, buf, len);
		break;
	case SHAPE_P_SIZE:
		dut_format_size((uint64_t)v, buf, len);
		break;
	case SHAPE_P_RATE:
		dut_format_rate(v, buf, len);
		break;
	case SHAPE_P_PERCENT:
		snprintf(buf, len, "%g%%", v);
		break;
	default:
		snprintf(buf, len, "%.0f", v);
		break;
	}
}

static const char *type_example(enum shape_ptype t)
{
	switch (t) {
	case SHAPE_P_DURATION: return "a duration such as \"8ms\" or \"150us\"";
	case SHAPE_P_SIZE:     return "a size such as \"4k\" or \"8GiB\"";
	case SHAPE_P_RATE:     return "a rate such as \"200MB/s\"";
	case SHAPE_P_COUNT:    return "a whole number";
	case SHAPE_P_PERCENT:  return "a percentage such as \"30%\"";
	case SHAPE_P_BOOL:     return "on or off";
	case SHAPE_P_FILL_TABLE: return "a table such as \"30%=1.0, 60%=1.4, 90%=2.6\"";
	}
	return "a value";
}

static int range_error(const struct shape_param *p, const char *value, struct dut_error *err)
{
	char lo[DUT_FMT_LEN], hi[DUT_FMT_LEN];

	format_bound(p->type, p->min, lo, sizeof(lo));
	format_bound(p->type, p->max, hi, sizeof(hi));
	dut_error_set(err, "%s (%s): expected %s from %s to %s, found \"%s\"", p->key, p->what,
		      type_example(p->type), lo, hi, value);
	return -ERANGE;
}

static int parse_count(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "on", "yes", "true", "1" }, *const no[] = { "off", "no", "false", "0" };

	for (unsigned i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

static int parse_fill_table(const struct shape_param *p, const char *value,
			    struct shape_fill_table *ret, struct dut_error *err)
{
	struct shape_fill_table t = { 0 };
	char buf[512], *save = NULL, *tok;

	if (strlen(value) >= sizeof(buf)) {
		dut_error_set(err, "%s: table too long (at most %zu characters)", p->key, sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		double pct, mult;
		struct dut_error e2;

		if (eq)
			*eq = '\0';
		trim(tok);
		if (!eq || dut_parse_percent(tok, &pct, &e2) < 0) {
			dut_error_set(err, "%s (%s): expected entries \"fill%%=multiplier\" such as "
				      "\"30%%=1.0, 60%%=1.4, 90%%=2.6\", found \"%s\"", p->key, p->what, value);
			return -EINVAL;
		}
		trim(eq + 1);
		errno = 0;
		mult = strtod(eq + 1, &end);
		if (!eq[1] || *end || errno || !(mult >= 0.1 && mult <= 100)) {
			dut_error_set(err, "%s: multiplier at %g%%: expected a number from 0.1 to 100, "
				      "found \"%s\"", p->key, pct, eq + 1);
			return -ERANGE;
		}
		if (t.n == SHAPE_FILL_POINTS_MAX) {
			dut_error_set(err, "%s: at most %u points, found more", p->key, SHAPE_FILL_POINTS_MAX);
			return -EINVAL;
		}
		if (t.n && pct <= t.pct[t.n - 1]) {
			dut_error_set(err, "%s: fill levels must increase, found %g%% after %g%%", p->key,
				      pct, t.pct[t.n - 1]);
			return -EINVAL;
		}
		t.pct[t.n] = pct;
		t.mult[t.n] = mult;
		t.n++;
	}
	if (t.n == 0) {
		dut_error_set(err, "%s (%s): expected %s, found \"%s\"", p->key, p->what,
			      type_example(p->type), value);
		return -EINVAL;
	}
	*ret = t;
	return 0;
}

int shape_param_parse(const struct shape_param *p, const char *value, void *out,
		      struct dut_error *err)
{
	struct dut_error e2 = { "" };
	uint64_t u;
	double d;
	bool b;
	int r;

	switch (p->type) {
	case SHAPE_P_DURATION:
	case SHAPE_P_SIZE:
	case SHAPE_P_COUNT:
		if (p->type == SHAPE_P_DURATION)
			r = dut_parse_duration(value, &u, &e2);
		else if (p->type == SHAPE_P_SIZE)
			r = dut_parse_size(value, &u, &e2);
		else
			r = parse_count(value, &u);
		if (r == -ERANGE)
			return range_error(p, value, err);
		if (r < 0) {
			dut_error_set(err, "%s (%s): expected %s, found \"%s\"%s%s", p->key, p->what,
				      type_example(p->type), value, e2.msg[0] ? ": " : "", e2.msg);
			return -EINVAL;
		}
		if ((double)u < p->min || (double)u > p->max)
			return range_error(p, value, err);
		*(uint64_t *)out = u;
		return 0;
	case SHAPE_P_RATE:
	case SHAPE_P_PERCENT:
		r = p->type == SHAPE_P_RATE ? dut_parse_rate(value, &d, &e2)
					    : dut_parse_percent(value, &d, &e2);
		if (r == -ERANGE)
			return range_error(p, value, err);
		if (r < 0) {
			dut_error_set(err, "%s (%s): expected %s, found \"%s\"", p->key, p->what,
				      type_example(p->type), value);
			return -EINVAL;
		}
		if (!(d >= p->min && d <= p->max))
			return range_error(p, value, err);
		*(double *)out = d;
		return 0;
	case SHAPE_P_BOOL:
		if (parse_bool(value, &b) < 0) {
			dut_error_set(err, "%s (%s): expected on or off, found \"%s\"", p->key, p->what, value);
			return -EINVAL;
		}
		*(bool *)out = b;
		return 0;
	case SHAPE_P_FILL_TABLE:
		return parse_fill_table(p, value, out, err);
	}
	return -EINVAL;
}

void *shape_model_params_new(const struct shape_model_ops *ops)
{
	return calloc(1, ops->params_size);
}

/* Row i of the combined table: common keys first, then the model's. */
static const struct shape_param *param_row(const struct shape_model_ops *ops, unsigned i)
{
	if (i < N_COMMON)
		return &common_params[i];
	i -= N_COMMON;
	for (unsigned k = 0; ops->params[k].key; k++) {
		if (k == i)
			return &ops->params[k];
	}
	return NULL;
}

static void *param_ptr(const struct shape_model_ops *ops, void *params, unsigned i)
{
	const struct shape_param *p = param_row(ops, i);

	/* common offsets are relative to struct shape_common, the first member */
	return (char *)params + p->offset;
}

int shape_model_param_set(const struct shape_model_ops *ops, void *params, uint64_t *seen,
			  const char *key, const char *value, struct dut_error *err)
{
	const struct shape_param *p;
	char keys[400] = "";
	size_t used = 0;

	for (unsigned i = 0; (p = param_row(ops, i)) != NULL; i++) {
		if (strcmp(p->key, key) != 0)
			continue;
		if (*seen & (1ull << i)) {
			dut_error_set(err, "%s is set twice", key);
			return -EINVAL;
		}
		if (shape_param_parse(p, value, param_ptr(ops, params, i), err) < 0)
			return -EINVAL;
		*seen |= 1ull << i;
		return 0;
	}
	for (unsigned i = 0; (p = param_row(ops, i)) != NULL && used < sizeof(keys); i++)
		used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", i ? ", " : "", p->key);
	dut_error_set(err, "unknown key \"%s\" for a model of type %s (expected one of: type, %s)",
		      key, ops->type, keys);
	return -ENOENT;
}

int shape_model_params_finish(const struct shape_model_ops *ops, void *params, uint64_t seen,
			      struct dut_error *err)
{
	const struct shape_param *p;

	for (unsigned i = 0; (p = param_row(ops, i)) != NULL; i++) {
		if (seen & (1ull << i))
			continue;
		if (p->dflt) {
			if (shape_param_parse(p, p->dflt, param_ptr(ops, params, i), err) < 0)
				return -EINVAL;   /* a bad default is a bug; say so anyway */
		} else if (!p->optional) {
			dut_error_set(err, "missing parameter %s (%s) for a model of type %s",
				      p->key, p->what, ops->type);
			return -EINVAL;
		}
	}
	return ops->check ? ops->check(params, err) : 0;
}

/* ---- the model wrapper ---- */

int shape_model_new(const char *name, unsigned line, const struct shape_model_ops *ops,
		    void *params, struct shape_model **ret)
{
	struct shape_model *m = calloc(1, sizeof(*m));
	int r;

	if (!m || !(m->name = strdup(name))) {
		free(m);
		return -ENOMEM;
	}
	r = ops->init(params, &m->state);
	if (r < 0) {
		free(m->name);
		free(m);
		return r;
	}
	m->line = line;
	m->ops = ops;
	m->params = params;
	pthread_mutex_init(&m->lock, NULL);
	*ret = m;
	return 0;
}

void shape_model_free(struct shape_model *m)
{
	if (!m)
		return;
	m->ops->fini(m->state);
	pthread_mutex_destroy(&m->lock);
	free(m->params);
	free(m->name);
	free(m);
}

void shape_model_submit(struct shape_model *m, const struct shape_req *r,
			struct shape_model_result *ret)
{
	const struct shape_common *cm = m->params;
	struct shape_model_result res = { .done_ns = r->now_ns };

	if (shape_op_is_sync(r->op) && !cm->barriers) {
		res.skip_sync = true;
		*ret = res;
		return;
	}
	pthread_mutex_lock(&m->lock);
	m->requests++;
	res.done_ns = m->ops->submit(m->state, m->params, r);
	pthread_mutex_unlock(&m->lock);
	if (res.done_ns < r->now_ns)
		res.done_ns = r->now_ns;
	*ret = res;
}

struct json_object *shape_model_stats_json(struct shape_model *m)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(m->name));
	json_object_object_add(o, "type", json_object_new_string(m->ops->type));
	pthread_mutex_lock(&m->lock);
	json_object_object_add(o, "requests", json_object_new_int64((int64_t)m->requests));
	if (m->ops->stats)
		m->ops->stats(m->state, m->params, o);
	pthread_mutex_unlock(&m->lock);
	return o;
}
