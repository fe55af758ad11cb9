/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of dutlab results: run ids, metrics of a document, devices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/results/results.h"

int results_run_id(const struct rundir_model *m, char *buf, size_t len, struct dut_error *err)
{
	const char *host = m->have_host ? m->host.hostname : "";
	int n;

	if (!m->name || !*m->name || !m->started_at || !*m->started_at || !*host) {
		dut_error_set(err, "the manifest has no %s: the run cannot be told apart from others",
			      !m->name || !*m->name ? "experiment name" :
			      !m->started_at || !*m->started_at ? "started_at" : "host.hostname");
		return -EINVAL;
	}
	n = snprintf(buf, len, "%s@%s@%s", m->name, host, m->started_at);
	if (n < 0 || (size_t)n >= len) {
		dut_error_set(err, "the run id (experiment@host@started_at) is longer than %zu bytes", len);
		return -EINVAL;
	}
	return 0;
}

void results_metrics_clear(struct results_metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].phase);
		free(m->v[i].name);
		free(m->v[i].unit);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int add_metric(struct results_metrics *m, size_t *cap, const char *phase,
		      const char *name, const char *sub, const char *unit, double value)
{
	struct results_metric *x;

	if (m->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct results_metric *v = realloc(m->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		*cap = nc;
	}
	x = &m->v[m->n];
	x->phase = strdup(phase);
	x->unit = strdup(unit ? unit : "");
	if (sub) {
		if (asprintf(&x->name, "%s.%s", name, sub) < 0)
			x->name = NULL;
	} else {
		x->name = strdup(name);
	}
	x->value = value;
	m->n++;
	if (!x->phase || !x->unit || !x->name)
		return -ENOMEM;
	return 0;
}

static bool is_number(json_object *o)
{
	return json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int);
}

static int flatten_phase(json_object *ph, struct results_metrics *m, size_t *cap)
{
	json_object *name, *metrics, *lat;
	const char *pname;
	int r;

	if (!json_object_object_get_ex(ph, "name", &name) || !json_object_is_type(name, json_type_string))
		return 0;
	pname = json_object_get_string(name);
	if (json_object_object_get_ex(ph, "metrics", &metrics) && json_object_is_type(metrics, json_type_object)) {
		json_object_object_foreach(metrics, k, v) {
			json_object *val, *unit;

			if (!json_object_object_get_ex(v, "value", &val) || !is_number(val))
				continue;
			json_object_object_get_ex(v, "unit", &unit);
			r = add_metric(m, cap, pname, k, NULL, unit ? json_object_get_string(unit) : "",
				       json_object_get_double(val));
			if (r < 0)
				return r;
		}
	}
	if (json_object_object_get_ex(ph, "latency", &lat) && json_object_is_type(lat, json_type_object)) {
		json_object_object_foreach(lat, k, v) {
			json_object *unit = NULL;
			const char *u;

			if (!json_object_is_type(v, json_type_object))
				continue;
			json_object_object_get_ex(v, "unit", &unit);
			u = unit ? json_object_get_string(unit) : "";
			json_object_object_foreach(v, f, fv) {
				/* a count has no unit of time */
				if (!is_number(fv))
					continue;
				r = add_metric(m, cap, pname, k, f, strcmp(f, "count") == 0 ? "" : u,
					       json_object_get_double(fv));
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

int results_flatten(json_object *doc, struct results_metrics *ret)
{
	struct results_metrics m = { 0 };
	json_object *phases;
	size_t cap = 0;
	int r;

	if (json_object_object_get_ex(doc, "phases", &phases) && json_object_is_type(phases, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(phases); i++) {
			r = flatten_phase(json_object_array_get_idx(phases, i), &m, &cap);
			if (r < 0) {
				results_metrics_clear(&m);
				return r;
			}
		}
	}
	*ret = m;
	return 0;
}

const char *results_workload(json_object *doc)
{
	json_object *c, *w;

	if (json_object_object_get_ex(doc, "config", &c) && json_object_object_get_ex(c, "workload", &w) &&
	    json_object_is_type(w, json_type_string))
		return json_object_get_string(w);
	return "";
}

static const char *str_at(json_object *o, const char *key)
{
	json_object *v;

	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

static json_object *obj_at(json_object *o, const char *key)
{
	json_object *v;

	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_object))
		return v;
	return NULL;
}

int results_device_from_identify(json_object *doc, struct results_device *ret)
{
	json_object *t = obj_at(doc, "target"), *nvme, *link, *ceil;
	/* the drive itself before what the kernel sees of it: behind a USB
	 * bridge the block device's model is the bridge's */
	struct {
		const char *source;
		json_object *o;
	} from[3] = {
		{ "inner_drive", obj_at(t, "inner_drive") },
		{ "nvme", NULL },
		{ "block_device", obj_at(t, "block_device") },
	};
	struct results_device d = { .source = "" };

	if (!t)
		return -ENOENT;
	nvme = obj_at(t, "nvme");
	from[1].o = obj_at(nvme, "controller");
	for (size_t i = 0; i < 3; i++) {
		if (!from[i].o || !*str_at(from[i].o, "model"))
			continue;
		snprintf(d.model, sizeof(d.model), "%s", str_at(from[i].o, "model"));
		snprintf(d.serial, sizeof(d.serial), "%s", str_at(from[i].o, "serial"));
		snprintf(d.firmware, sizeof(d.firmware), "%s", str_at(from[i].o, "firmware"));
		d.source = from[i].source;
		break;
	}
	link = obj_at(t, "link");
	if (link) {
		const char *desc = str_at(link, "description");

		snprintf(d.link, sizeof(d.link), "%s%s%s", str_at(link, "kind"), *desc ? ": " : "", desc);
		if (json_object_object_get_ex(link, "ceiling_bytes_per_s", &ceil) && is_number(ceil))
			d.ceiling_bytes_per_s = json_object_get_double(ceil);
	}
	if (!*d.model && !link)
		return -ENOENT;
	*ret = d;
	return 0;
}
