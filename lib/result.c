/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result documents (see lib/result.h and docs/result-schema.md).
 *
 * The json-c tree is the single source of truth: the structs below only
 * cache borrowed pointers into it (phases, series), so a document that was
 * built, or parsed, serialises exactly as it reads back.  Invariants:
 *   - every double in the tree is finite (setters and the reader refuse
 *     NaN/inf; dut_result_to_string re-checks the free-form parts);
 *   - doubles we create carry their shortest round-trip text
 *     (json_object_new_double_s), so "0.1" stays "0.1" and reads back
 *     bit-exact; doubles parsed from text keep their original text;
 *   - nanosecond counts are JSON integers (json_object_new_uint64).
 *
 * Pure code: no I/O here.  Reader: result_read.c; files: result_file.c;
 * clock and host: host_linux.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/printbuf.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "lib/result_priv.h"

const char *const dut_res_latency_u64_keys[DUT_RES_LATENCY_U64_KEYS] = {
	"count", "min", "max", "p50", "p90", "p99", "p99.9", "p99.99",
};

/* ---------------------------------------------------------------- helpers */

/*
 * Shortest "%.*g" text that reads back as the same double, so documents
 * stay readable and values are exact.  v must be finite.
 */
static json_object *new_exact_double(double v)
{
	char buf[48];
	const char *e;
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	/* 1200 is "1.2e+03" at its shortest: print plain digits below 1e17 */
	e = strchr(buf, 'e');
	if (e && atoi(e + 1) >= 0 && atoi(e + 1) < 17)
		snprintf(buf, sizeof(buf), "%.*g", atoi(e + 1) + 1, v);
	/* keep it visibly a floating-point number */
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return json_object_new_double_s(v, buf);
}

/* "[1.0, 1200.0]" on one line, so a series row is one line of the document. */
static int compact_array_to_string(json_object *a, struct printbuf *pb, int level, int flags)
{
	printbuf_strappend(pb, "[");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *s = json_object_to_json_string_ext(json_object_array_get_idx(a, i),
							       JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);

		if (i)
			printbuf_strappend(pb, ", ");
		printbuf_memappend(pb, s, (int)strlen(s));
	}
	printbuf_strappend(pb, "]");
	return 0;
}

void dut_res_make_compact(json_object *array)
{
	json_object_set_serializer(array, compact_array_to_string, NULL, NULL);
}

int dut_res_add_member(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val) < 0) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int add_string(json_object *obj, const char *key, const char *s)
{
	return dut_res_add_member(obj, key, json_object_new_string(s ? s : ""));
}

static json_object *add_new_object(json_object *obj, const char *key)
{
	json_object *o = json_object_new_object();

	if (dut_res_add_member(obj, key, o) < 0)
		return NULL;
	return o;
}

void dut_res_series_free(struct dut_series *s)
{
	if (!s)
		return;
	free(s->name);
	free(s);
}

static void phase_free(struct dut_result_phase *ph)
{
	if (!ph)
		return;
	for (size_t i = 0; i < ph->nseries; i++)
		dut_res_series_free(ph->series[i]);
	free(ph->series);
	free(ph);
}

void dut_result_free(struct dut_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nphases; i++)
		phase_free(r->phases[i]);
	free(r->phases);
	json_object_put(r->doc);
	free(r);
}

DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

int dut_res_push_phase(struct dut_result *r, struct dut_result_phase *ph)
{
	struct dut_result_phase **n = realloc(r->phases, (r->nphases + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->phases = n;
	r->phases[r->nphases++] = ph;
	return 0;
}

int dut_res_push_series(struct dut_result_phase *ph, struct dut_series *s)
{
	struct dut_series **n = realloc(ph->series, (ph->nseries + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	ph->series = n;
	ph->series[ph->nseries++] = s;
	return 0;
}

/* ---------------------------------------------------------------- writing */

struct dut_result *dut_result_new(const char *tool, const char *version)
{
	_cleanup_(dut_result_freep) struct dut_result *r = NULL;
	json_object *t;
	char created[32];

	if (!tool || !*tool)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->doc = json_object_new_object();
	if (!r->doc || add_string(r->doc, "schema", DUT_RESULT_SCHEMA) < 0 ||
	    dut_res_add_member(r->doc, "schema_version", json_object_new_int(DUT_RESULT_SCHEMA_VERSION)) < 0)
		return NULL;
	t = add_new_object(r->doc, "tool");
	if (!t || add_string(t, "name", tool) < 0 || add_string(t, "version", version) < 0 ||
	    add_string(t, "command", "") < 0)
		return NULL;
	if (dut_host_utc_now(created, sizeof(created)) == 0 &&
	    add_string(r->doc, "created", created) < 0)
		return NULL;
	if (!add_new_object(r->doc, "target") || !add_new_object(r->doc, "config"))
		return NULL;
	r->phases_arr = json_object_new_array();
	if (dut_res_add_member(r->doc, "phases", r->phases_arr) < 0)
		return NULL;
	return TAKE_PTR(r);
}

/* Characters that need no quoting in a POSIX shell word. */
static bool shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_@%+=:,./-", *s))
			return false;
	return true;
}

/* The command line as one string a shell would split back into argv. */
int dut_result_set_command(struct dut_result *r, int argc, char *const *argv)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 1;
	json_object *tool;

	if (!r || argc < 0 || (argc > 0 && !argv))
		return -EINVAL;
	for (int i = 0; i < argc; i++) {
		if (!argv[i])
			return -EINVAL;
		cap += 4 * strlen(argv[i]) + 3; /* worst case: every char is ' -> '\'' */
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (i)
			buf[len++] = ' ';
		if (shell_safe(argv[i])) {
			memcpy(buf + len, argv[i], strlen(argv[i]));
			len += strlen(argv[i]);
			continue;
		}
		buf[len++] = '\'';
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'') {
				memcpy(buf + len, "'\\''", 4);
				len += 4;
			} else {
				buf[len++] = *c;
			}
		}
		buf[len++] = '\'';
	}
	buf[len] = '\0';
	if (!json_object_object_get_ex(r->doc, "tool", &tool))
		return -EINVAL;
	return add_string(tool, "command", buf);
}

static json_object *host_to_json(const struct dut_host *h)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (add_string(o, "hostname", h->hostname) < 0 || add_string(o, "kernel", h->kernel) < 0 ||
	    add_string(o, "cpu_model", h->cpu_model) < 0 ||
	    dut_res_add_member(o, "cpus", json_object_new_uint64(h->cpus)) < 0 ||
	    dut_res_add_member(o, "mem_bytes", json_object_new_uint64(h->mem_bytes)) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int dut_result_set_host(struct dut_result *r, const struct dut_host *host)
{
	json_object *o, *cur;

	if (!r || !host)
		return -EINVAL;
	o = host_to_json(host);
	if (!o)
		return -ENOMEM;
	if (json_object_object_get_ex(r->doc, "host", &cur))
		return dut_res_add_member(r->doc, "host", o);
	/* keep the document's member order: host comes before target */
	{
		json_object *tail[3] = { NULL };
		static const char *const keys[3] = { "target", "config", "phases" };
		int ret = dut_res_add_member(r->doc, "host", o);

		if (ret < 0)
			return ret;
		for (int i = 0; i < 3; i++) {
			if (!json_object_object_get_ex(r->doc, keys[i], &tail[i]))
				continue;
			json_object_get(tail[i]);
			json_object_object_del(r->doc, keys[i]);
			ret = dut_res_add_member(r->doc, keys[i], tail[i]);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

json_object *dut_result_target(struct dut_result *r)
{
	json_object *o = NULL;

	if (r)
		json_object_object_get_ex(r->doc, "target", &o);
	return o;
}

json_object *dut_result_config(struct dut_result *r)
{
	json_object *o = NULL;

	if (r)
		json_object_object_get_ex(r->doc, "config", &o);
	return o;
}

struct dut_result_phase *dut_result_add_phase(struct dut_result *r, const char *name)
{
	struct dut_result_phase *ph;
	json_object *o;

	if (!r || !name || !*name || dut_result_find_phase(r, name))
		return NULL;
	ph = calloc(1, sizeof(*ph));
	o = json_object_new_object();
	if (!ph || !o)
		goto out_free;
	ph->obj = o;
	if (add_string(o, "name", name) < 0 || !(ph->metrics = add_new_object(o, "metrics")) ||
	    !(ph->latency = add_new_object(o, "latency")) ||
	    !(ph->series_obj = add_new_object(o, "series")) ||
	    !(ph->extra = add_new_object(o, "extra")))
		goto out_free;
	if (dut_res_push_phase(r, ph) < 0)
		goto out_free;
	if (json_object_array_add(r->phases_arr, o) < 0) {
		r->nphases--;
		goto out_free;
	}
	return ph;

out_free:
	json_object_put(o);
	free(ph);
	return NULL;
}

int dut_phase_set_duration(struct dut_result_phase *ph, uint64_t duration_ns)
{
	static const char *const after[] = { "metrics", "latency", "series", "extra" };
	json_object *cur;
	int ret;

	if (!ph)
		return -EINVAL;
	if (json_object_object_get_ex(ph->obj, "duration_ns", &cur))
		return dut_res_add_member(ph->obj, "duration_ns", json_object_new_uint64(duration_ns));
	ret = dut_res_add_member(ph->obj, "duration_ns", json_object_new_uint64(duration_ns));
	/* readers expect the duration right after the name: move the rest behind it */
	for (size_t i = 0; ret == 0 && i < DUT_ARRAY_SIZE(after); i++) {
		json_object *v;

		if (!json_object_object_get_ex(ph->obj, after[i], &v))
			continue;
		json_object_get(v);
		json_object_object_del(ph->obj, after[i]);
		ret = dut_res_add_member(ph->obj, after[i], v);
	}
	return ret;
}

int dut_phase_set_metric(struct dut_result_phase *ph, const char *name, double value,
			 const char *unit)
{
	json_object *m;

	if (!ph || !name || !*name || !isfinite(value))
		return -EINVAL;
	m = json_object_new_object();
	if (!m)
		return -ENOMEM;
	if (dut_res_add_member(m, "value", new_exact_double(value)) < 0 || add_string(m, "unit", unit) < 0) {
		json_object_put(m);
		return -ENOMEM;
	}
	return dut_res_add_member(ph->metrics, name, m);
}

int dut_phase_set_latency(struct dut_result_phase *ph, const char *name,
			  const struct dut_hist_summary *s)
{
	const uint64_t v[] = { s ? s->count : 0, s ? s->min : 0, s ? s->max : 0,
			       s ? s->p50 : 0, s ? s->p90 : 0, s ? s->p99 : 0,
			       s ? s->p999 : 0, s ? s->p9999 : 0 };
	json_object *o;
	int ret;

	if (!ph || !name || !*name || !s || !isfinite(s->mean) || !isfinite(s->stddev))
		return -EINVAL;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	ret = add_string(o, "unit", "ns");
	/* the member order of the schema: count, min, max, mean, stddev, percentiles */
	for (size_t i = 0; ret == 0 && i < 3; i++)
		ret = dut_res_add_member(o, dut_res_latency_u64_keys[i], json_object_new_uint64(v[i]));
	if (ret == 0)
		ret = dut_res_add_member(o, "mean", new_exact_double(s->mean));
	if (ret == 0)
		ret = dut_res_add_member(o, "stddev", new_exact_double(s->stddev));
	for (size_t i = 3; ret == 0 && i < DUT_ARRAY_SIZE(dut_res_latency_u64_keys); i++)
		ret = dut_res_add_member(o, dut_res_latency_u64_keys[i], json_object_new_uint64(v[i]));
	if (ret < 0) {
		json_object_put(o);
		return ret;
	}
	return dut_res_add_member(ph->latency, name, o);
}

static json_object *string_array(const char *const *strs, size_t n)
{
	json_object *a = json_object_new_array_ext((int)n);

	if (!a)
		return NULL;
	dut_res_make_compact(a);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_new_string(strs ? strs[i] : "");

		if (!s || json_object_array_add(a, s) < 0) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct dut_series *dut_phase_add_series(struct dut_result_phase *ph, const char *name,
					const char *const *columns, const char *const *units,
					size_t ncols)
{
	struct dut_series *s;
	json_object *o;

	if (!ph || !name || !*name || !columns || ncols == 0 || ncols > INT_MAX ||
	    dut_phase_get_series(ph, name))
		return NULL;
	for (size_t i = 0; i < ncols; i++) {
		if (!columns[i] || !*columns[i] || (units && !units[i]))
			return NULL;
		for (size_t j = 0; j < i; j++)
			if (strcmp(columns[i], columns[j]) == 0)
				return NULL;
	}
	s = calloc(1, sizeof(*s));
	o = json_object_new_object();
	if (!s || !o || !(s->name = strdup(name)))
		goto out_free;
	s->ncols = ncols;
	s->columns = string_array(columns, ncols);
	if (dut_res_add_member(o, "columns", s->columns) < 0 ||
	    dut_res_add_member(o, "units", string_array(units, ncols)) < 0)
		goto out_free;
	s->rows = json_object_new_array();
	if (dut_res_add_member(o, "rows", s->rows) < 0)
		goto out_free;
	if (dut_res_push_series(ph, s) < 0)
		goto out_free;
	if (dut_res_add_member(ph->series_obj, name, o) < 0) {
		ph->nseries--;
		o = NULL; /* dut_res_add_member dropped it */
		goto out_free;
	}
	return s;

out_free:
	json_object_put(o);
	dut_res_series_free(s);
	return NULL;
}

int dut_series_append(struct dut_series *s, const double *row)
{
	json_object *a;

	if (!s || !row)
		return -EINVAL;
	for (size_t i = 0; i < s->ncols; i++)
		if (!isfinite(row[i]))
			return -EINVAL;
	a = json_object_new_array_ext((int)s->ncols);
	if (!a)
		return -ENOMEM;
	dut_res_make_compact(a);
	for (size_t i = 0; i < s->ncols; i++) {
		json_object *v = new_exact_double(row[i]);

		if (!v || json_object_array_add(a, v) < 0) {
			json_object_put(v);
			json_object_put(a);
			return -ENOMEM;
		}
	}
	if (json_object_array_add(s->rows, a) < 0) {
		json_object_put(a);
		return -ENOMEM;
	}
	return 0;
}

json_object *dut_phase_extra(struct dut_result_phase *ph)
{
	return ph ? ph->extra : NULL;
}

/* ------------------------------------------------------- checking numbers */

/* Append ".key" (or "key" at the root) or "[i]"; returns the old length. */
size_t dut_res_path_push_key(struct dut_res_path *p, const char *key)
{
	size_t old = p->len;
	int n = snprintf(p->buf + p->len, sizeof(p->buf) - p->len, "%s%s", p->len ? "." : "", key);

	p->len = n < 0 ? p->len : p->len + (size_t)n >= sizeof(p->buf) ? sizeof(p->buf) - 1
								      : p->len + (size_t)n;
	return old;
}

size_t dut_res_path_push_index(struct dut_res_path *p, size_t i)
{
	size_t old = p->len;
	int n = snprintf(p->buf + p->len, sizeof(p->buf) - p->len, "[%zu]", i);

	p->len = n < 0 ? p->len : p->len + (size_t)n >= sizeof(p->buf) ? sizeof(p->buf) - 1
								      : p->len + (size_t)n;
	return old;
}

void dut_res_path_pop(struct dut_res_path *p, size_t old)
{
	p->len = old;
	p->buf[old] = '\0';
}

const char *dut_res_path_str(const struct dut_res_path *p)
{
	return p->len ? p->buf : "document";
}

/* Every double anywhere in the tree is finite (NaN and inf are not JSON). */
int dut_res_check_finite(json_object *o, struct dut_res_path *p, struct dut_error *err)
{
	int ret = 0;

	switch (json_object_get_type(o)) {
	case json_type_double:
		if (!isfinite(json_object_get_double(o))) {
			dut_error_set(err, "%s: number is not finite (NaN and infinity are not valid JSON)",
				      dut_res_path_str(p));
			return -EINVAL;
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			size_t old = dut_res_path_push_key(p, key);

			ret = dut_res_check_finite(val, p, err);
			dut_res_path_pop(p, old);
			if (ret)
				return ret;
		}
		return 0;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			size_t old = dut_res_path_push_index(p, i);

			ret = dut_res_check_finite(json_object_array_get_idx(o, i), p, err);
			dut_res_path_pop(p, old);
			if (ret)
				return ret;
		}
		return 0;
	default:
		return 0;
	}
}

int dut_result_to_string(const struct dut_result *r, char **ret)
{
	struct dut_res_path p = { .len = 0 };
	const char *s;
	size_t len;
	char *out;

	if (!r || !ret)
		return -EINVAL;
	if (dut_res_check_finite(r->doc, &p, NULL) < 0)
		return -EINVAL;
	s = json_object_to_json_string_ext(r->doc, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		return -ENOMEM;
	len = strlen(s);
	out = malloc(len + 2);
	if (!out)
		return -ENOMEM;
	memcpy(out, s, len);
	out[len] = '\n';
	out[len + 1] = '\0';
	*ret = out;
	return 0;
}

/* -------------------------------------------------------------- accessors */

const char *dut_result_tool_name(const struct dut_result *r)
{
	json_object *t, *v;

	if (!r || !json_object_object_get_ex(r->doc, "tool", &t) ||
	    !json_object_object_get_ex(t, "name", &v))
		return NULL;
	return json_object_get_string(v);
}

const char *dut_result_tool_version(const struct dut_result *r)
{
	json_object *t, *v;

	if (!r || !json_object_object_get_ex(r->doc, "tool", &t) ||
	    !json_object_object_get_ex(t, "version", &v))
		return NULL;
	return json_object_get_string(v);
}

static void copy_member_string(json_object *o, const char *key, char *dst, size_t len)
{
	json_object *v;

	snprintf(dst, len, "%s",
		 json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "");
}

int dut_result_get_host(const struct dut_result *r, struct dut_host *ret)
{
	json_object *h, *v;
	struct dut_host out = { { 0 } };

	if (!r || !ret)
		return -EINVAL;
	if (!json_object_object_get_ex(r->doc, "host", &h))
		return -ENOENT;
	copy_member_string(h, "hostname", out.hostname, sizeof(out.hostname));
	copy_member_string(h, "kernel", out.kernel, sizeof(out.kernel));
	copy_member_string(h, "cpu_model", out.cpu_model, sizeof(out.cpu_model));
	if (json_object_object_get_ex(h, "cpus", &v))
		out.cpus = (unsigned)json_object_get_uint64(v);
	if (json_object_object_get_ex(h, "mem_bytes", &v))
		out.mem_bytes = json_object_get_uint64(v);
	*ret = out;
	return 0;
}

size_t dut_result_phase_count(const struct dut_result *r)
{
	return r ? r->nphases : 0;
}

struct dut_result_phase *dut_result_phase_at(const struct dut_result *r, size_t i)
{
	return r && i < r->nphases ? r->phases[i] : NULL;
}

struct dut_result_phase *dut_result_find_phase(const struct dut_result *r, const char *name)
{
	if (!r || !name)
		return NULL;
	for (size_t i = 0; i < r->nphases; i++)
		if (strcmp(dut_phase_name(r->phases[i]), name) == 0)
			return r->phases[i];
	return NULL;
}

json_object *dut_result_json(const struct dut_result *r)
{
	return r ? r->doc : NULL;
}

const char *dut_phase_name(const struct dut_result_phase *ph)
{
	json_object *v;

	if (!ph || !json_object_object_get_ex(ph->obj, "name", &v))
		return NULL;
	return json_object_get_string(v);
}

int dut_phase_get_duration(const struct dut_result_phase *ph, uint64_t *ret_ns)
{
	json_object *v;

	if (!ph || !ret_ns)
		return -EINVAL;
	if (!json_object_object_get_ex(ph->obj, "duration_ns", &v))
		return -ENOENT;
	*ret_ns = json_object_get_uint64(v);
	return 0;
}

int dut_phase_get_metric(const struct dut_result_phase *ph, const char *name,
			 double *ret_value, const char **ret_unit)
{
	json_object *m, *v, *u;

	if (!ph || !name)
		return -EINVAL;
	if (!json_object_object_get_ex(ph->metrics, name, &m))
		return -ENOENT;
	if (!json_object_object_get_ex(m, "value", &v) || !json_object_object_get_ex(m, "unit", &u))
		return -EINVAL; /* not reachable for a validated document */
	if (ret_value)
		*ret_value = json_object_get_double(v);
	if (ret_unit)
		*ret_unit = json_object_get_string(u);
	return 0;
}

int dut_phase_get_latency(const struct dut_result_phase *ph, const char *name,
			  struct dut_hist_summary *ret)
{
	uint64_t *dst[DUT_ARRAY_SIZE(dut_res_latency_u64_keys)];
	struct dut_hist_summary s = { 0 };
	json_object *l, *v;

	if (!ph || !name || !ret)
		return -EINVAL;
	if (!json_object_object_get_ex(ph->latency, name, &l))
		return -ENOENT;
	dst[0] = &s.count, dst[1] = &s.min, dst[2] = &s.max, dst[3] = &s.p50;
	dst[4] = &s.p90, dst[5] = &s.p99, dst[6] = &s.p999, dst[7] = &s.p9999;
	for (size_t i = 0; i < DUT_ARRAY_SIZE(dut_res_latency_u64_keys); i++) {
		if (!json_object_object_get_ex(l, dut_res_latency_u64_keys[i], &v))
			return -EINVAL;
		*dst[i] = json_object_get_uint64(v);
	}
	if (!json_object_object_get_ex(l, "mean", &v))
		return -EINVAL;
	s.mean = json_object_get_double(v);
	if (!json_object_object_get_ex(l, "stddev", &v))
		return -EINVAL;
	s.stddev = json_object_get_double(v);
	*ret = s;
	return 0;
}

struct dut_series *dut_phase_get_series(const struct dut_result_phase *ph, const char *name)
{
	if (!ph || !name)
		return NULL;
	for (size_t i = 0; i < ph->nseries; i++)
		if (strcmp(ph->series[i]->name, name) == 0)
			return ph->series[i];
	return NULL;
}

size_t dut_series_ncols(const struct dut_series *s)
{
	return s ? s->ncols : 0;
}

size_t dut_series_nrows(const struct dut_series *s)
{
	return s ? json_object_array_length(s->rows) : 0;
}

int dut_series_col(const struct dut_series *s, const char *column)
{
	if (!s || !column)
		return -EINVAL;
	for (size_t i = 0; i < s->ncols; i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(s->columns, i)), column) == 0)
			return (int)i;
	return -ENOENT;
}

double dut_series_get(const struct dut_series *s, size_t row, size_t col)
{
	json_object *r;

	if (!s || row >= json_object_array_length(s->rows) || col >= s->ncols)
		return NAN;
	r = json_object_array_get_idx(s->rows, row);
	return json_object_get_double(json_object_array_get_idx(r, col));
}

