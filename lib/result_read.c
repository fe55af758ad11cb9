/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading result documents: strict JSON syntax (json-c tokener), then a
 * structural check of every member the schema defines, with an error that
 * names the member's path and says what was expected and what was found.
 * Unknown members are accepted (forward compatible); a newer schema_version
 * is refused.  See docs/result-schema.md.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "lib/result_priv.h"

DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

struct reader {
	struct dut_res_path p;
	struct dut_error *err;
};

enum kind { K_STRING, K_NUMBER, K_UINT, K_OBJECT, K_ARRAY };

static const char *const kind_names[] = {
	[K_STRING] = "a string",
	[K_NUMBER] = "a number",
	[K_UINT] = "a non-negative integer",
	[K_OBJECT] = "an object",
	[K_ARRAY] = "an array",
};

static const char *found_desc(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number with a fraction or exponent";
	case json_type_int: return json_object_get_int64(o) < 0 ? "a negative integer" : "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

static int fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *rd, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dut_error_set(rd->err, "%s: %s", dut_res_path_str(&rd->p), msg);
	return -EINVAL;
}

static bool is_kind(json_object *o, enum kind k)
{
	switch (k) {
	case K_STRING: return json_object_is_type(o, json_type_string);
	case K_NUMBER:
		return json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int);
	case K_UINT:
		return json_object_is_type(o, json_type_int) && json_object_get_int64(o) >= 0;
	case K_OBJECT: return json_object_is_type(o, json_type_object);
	case K_ARRAY: return json_object_is_type(o, json_type_array);
	}
	return false;
}

/* The value at the current path has kind k. */
static int check_kind(struct reader *rd, json_object *o, enum kind k)
{
	if (!is_kind(o, k))
		return fail(rd, "expected %s, found %s", kind_names[k], found_desc(o));
	return 0;
}

/*
 * Member key of obj with kind k.  Missing: an error when required, else
 * *ret = NULL.  On success the path is back where it was.
 */
static int member(struct reader *rd, json_object *obj, const char *key, enum kind k,
		  bool required, json_object **ret)
{
	size_t old = dut_res_path_push_key(&rd->p, key);
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v)) {
		if (required)
			return fail(rd, "missing, expected %s", kind_names[k]);
		v = NULL;
	} else if (check_kind(rd, v, k) < 0) {
		return -EINVAL;
	}
	dut_res_path_pop(&rd->p, old);
	*ret = v;
	return 0;
}

/* An optional free-form object; an empty one is added when absent. */
static int container(struct reader *rd, json_object *obj, const char *key, json_object **ret)
{
	json_object *v;
	int r = member(rd, obj, key, K_OBJECT, false, &v);

	if (r < 0)
		return r;
	if (!v) {
		v = json_object_new_object();
		if ((r = dut_res_add_member(obj, key, v)) < 0)
			return r;
	}
	*ret = v;
	return 0;
}

static int read_host(struct reader *rd, json_object *doc)
{
	static const char *const strs[] = { "hostname", "kernel", "cpu_model" };
	json_object *h, *v;
	size_t old;
	int r = member(rd, doc, "host", K_OBJECT, false, &h);

	if (r < 0 || !h)
		return r;
	old = dut_res_path_push_key(&rd->p, "host");
	for (size_t i = 0; i < DUT_ARRAY_SIZE(strs); i++)
		if ((r = member(rd, h, strs[i], K_STRING, true, &v)) < 0)
			return r;
	if ((r = member(rd, h, "cpus", K_UINT, true, &v)) < 0)
		return r;
	if (json_object_get_uint64(v) > UINT_MAX) {
		dut_res_path_push_key(&rd->p, "cpus");
		return fail(rd, "%llu is too large", (unsigned long long)json_object_get_uint64(v));
	}
	if ((r = member(rd, h, "mem_bytes", K_UINT, true, &v)) < 0)
		return r;
	dut_res_path_pop(&rd->p, old);
	return 0;
}

static int read_metrics(struct reader *rd, struct dut_result_phase *ph)
{
	json_object_object_foreach(ph->metrics, name, m) {
		size_t old = dut_res_path_push_key(&rd->p, name);
		json_object *v;
		int r;

		if ((r = check_kind(rd, m, K_OBJECT)) < 0 ||
		    (r = member(rd, m, "value", K_NUMBER, true, &v)) < 0 ||
		    (r = member(rd, m, "unit", K_STRING, true, &v)) < 0)
			return r;
		dut_res_path_pop(&rd->p, old);
	}
	return 0;
}

static int read_latency(struct reader *rd, struct dut_result_phase *ph)
{
	json_object_object_foreach(ph->latency, name, l) {
		size_t old = dut_res_path_push_key(&rd->p, name);
		json_object *v;
		int r;

		if ((r = check_kind(rd, l, K_OBJECT)) < 0 ||
		    (r = member(rd, l, "unit", K_STRING, true, &v)) < 0)
			return r;
		if (strcmp(json_object_get_string(v), "ns") != 0) {
			dut_res_path_push_key(&rd->p, "unit");
			return fail(rd, "expected \"ns\", found \"%s\"", json_object_get_string(v));
		}
		for (size_t i = 0; i < DUT_ARRAY_SIZE(dut_res_latency_u64_keys); i++)
			if ((r = member(rd, l, dut_res_latency_u64_keys[i], K_UINT, true, &v)) < 0)
				return r;
		if ((r = member(rd, l, "mean", K_NUMBER, true, &v)) < 0 ||
		    (r = member(rd, l, "stddev", K_NUMBER, true, &v)) < 0)
			return r;
		dut_res_path_pop(&rd->p, old);
	}
	return 0;
}

/* columns: non-empty array of distinct non-empty strings. */
static int read_columns(struct reader *rd, json_object *cols, json_object *units)
{
	size_t n = json_object_array_length(cols), old;

	old = dut_res_path_push_key(&rd->p, "columns");
	if (n == 0)
		return fail(rd, "expected at least one column");
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cols, i);
		size_t o2 = dut_res_path_push_index(&rd->p, i);

		if (check_kind(rd, c, K_STRING) < 0)
			return -EINVAL;
		if (!*json_object_get_string(c))
			return fail(rd, "empty column name");
		for (size_t j = 0; j < i; j++)
			if (strcmp(json_object_get_string(c),
				   json_object_get_string(json_object_array_get_idx(cols, j))) == 0)
				return fail(rd, "duplicate column \"%s\"", json_object_get_string(c));
		dut_res_path_pop(&rd->p, o2);
	}
	dut_res_path_pop(&rd->p, old);
	old = dut_res_path_push_key(&rd->p, "units");
	if (json_object_array_length(units) != n)
		return fail(rd, "expected %zu units (one per column), found %zu", n,
			    json_object_array_length(units));
	for (size_t i = 0; i < n; i++) {
		size_t o2 = dut_res_path_push_index(&rd->p, i);

		if (check_kind(rd, json_object_array_get_idx(units, i), K_STRING) < 0)
			return -EINVAL;
		dut_res_path_pop(&rd->p, o2);
	}
	dut_res_path_pop(&rd->p, old);
	return 0;
}

static int read_rows(struct reader *rd, json_object *rows, size_t ncols)
{
	size_t old = dut_res_path_push_key(&rd->p, "rows");

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *row = json_object_array_get_idx(rows, i);
		size_t o2 = dut_res_path_push_index(&rd->p, i);

		if (check_kind(rd, row, K_ARRAY) < 0)
			return -EINVAL;
		dut_res_make_compact(row);
		if (json_object_array_length(row) != ncols)
			return fail(rd, "expected %zu values (one per column), found %zu", ncols,
				    json_object_array_length(row));
		for (size_t j = 0; j < ncols; j++) {
			size_t o3 = dut_res_path_push_index(&rd->p, j);

			if (check_kind(rd, json_object_array_get_idx(row, j), K_NUMBER) < 0)
				return -EINVAL;
			dut_res_path_pop(&rd->p, o3);
		}
		dut_res_path_pop(&rd->p, o2);
	}
	dut_res_path_pop(&rd->p, old);
	return 0;
}

static int read_series(struct reader *rd, struct dut_result_phase *ph)
{
	json_object_object_foreach(ph->series_obj, name, so) {
		size_t old = dut_res_path_push_key(&rd->p, name);
		json_object *cols, *units, *rows;
		struct dut_series *s;
		int r;

		if ((r = check_kind(rd, so, K_OBJECT)) < 0 ||
		    (r = member(rd, so, "columns", K_ARRAY, true, &cols)) < 0 ||
		    (r = member(rd, so, "units", K_ARRAY, true, &units)) < 0 ||
		    (r = member(rd, so, "rows", K_ARRAY, true, &rows)) < 0 ||
		    (r = read_columns(rd, cols, units)) < 0 ||
		    (r = read_rows(rd, rows, json_object_array_length(cols))) < 0)
			return r;
		dut_res_make_compact(cols);
		dut_res_make_compact(units);
		s = calloc(1, sizeof(*s));
		if (!s || !(s->name = strdup(name)) || dut_res_push_series(ph, s) < 0) {
			dut_res_series_free(s);
			return -ENOMEM;
		}
		s->columns = cols;
		s->rows = rows;
		s->ncols = json_object_array_length(cols);
		dut_res_path_pop(&rd->p, old);
	}
	return 0;
}

static int read_phase(struct reader *rd, struct dut_result *r, json_object *o)
{
	struct dut_result_phase *ph;
	json_object *v;
	int ret;

	if ((ret = check_kind(rd, o, K_OBJECT)) < 0 ||
	    (ret = member(rd, o, "name", K_STRING, true, &v)) < 0)
		return ret;
	dut_res_path_push_key(&rd->p, "name");
	if (!*json_object_get_string(v))
		return fail(rd, "empty phase name");
	if (dut_result_find_phase(r, json_object_get_string(v)))
		return fail(rd, "duplicate phase name \"%s\"", json_object_get_string(v));
	dut_res_path_pop(&rd->p, rd->p.len - strlen(".name"));
	if ((ret = member(rd, o, "duration_ns", K_UINT, false, &v)) < 0)
		return ret;
	ph = calloc(1, sizeof(*ph));
	if (!ph)
		return -ENOMEM;
	ph->obj = o;
	if ((ret = dut_res_push_phase(r, ph)) < 0) {
		free(ph);
		return ret;
	}
	if ((ret = container(rd, o, "metrics", &ph->metrics)) < 0 ||
	    (ret = container(rd, o, "latency", &ph->latency)) < 0 ||
	    (ret = container(rd, o, "series", &ph->series_obj)) < 0 ||
	    (ret = container(rd, o, "extra", &ph->extra)) < 0)
		return ret;
	size_t old = dut_res_path_push_key(&rd->p, "metrics");
	if ((ret = read_metrics(rd, ph)) < 0)
		return ret;
	dut_res_path_pop(&rd->p, old);
	old = dut_res_path_push_key(&rd->p, "latency");
	if ((ret = read_latency(rd, ph)) < 0)
		return ret;
	dut_res_path_pop(&rd->p, old);
	old = dut_res_path_push_key(&rd->p, "series");
	if ((ret = read_series(rd, ph)) < 0)
		return ret;
	dut_res_path_pop(&rd->p, old);
	return 0;
}

static int read_header(struct reader *rd, json_object *doc)
{
	json_object *v, *tool;
	int64_t ver;
	int r;

	if ((r = check_kind(rd, doc, K_OBJECT)) < 0 ||
	    (r = member(rd, doc, "schema", K_STRING, true, &v)) < 0)
		return r;
	if (strcmp(json_object_get_string(v), DUT_RESULT_SCHEMA) != 0) {
		dut_res_path_push_key(&rd->p, "schema");
		return fail(rd, "expected \"%s\", found \"%s\": not a dutlab result document",
			    DUT_RESULT_SCHEMA, json_object_get_string(v));
	}
	if ((r = member(rd, doc, "schema_version", K_UINT, true, &v)) < 0)
		return r;
	ver = json_object_get_int64(v);
	dut_res_path_push_key(&rd->p, "schema_version");
	if (ver < 1)
		return fail(rd, "expected a version >= 1, found %lld", (long long)ver);
	if (ver > DUT_RESULT_SCHEMA_VERSION)
		return fail(rd, "the document has schema version %lld, this dutlab reads version %d "
			    "and older: use a newer dutlab to read it", (long long)ver,
			    DUT_RESULT_SCHEMA_VERSION);
	dut_res_path_pop(&rd->p, 0);
	if ((r = member(rd, doc, "tool", K_OBJECT, true, &tool)) < 0)
		return r;
	dut_res_path_push_key(&rd->p, "tool");
	if ((r = member(rd, tool, "name", K_STRING, true, &v)) < 0 ||
	    (r = member(rd, tool, "version", K_STRING, true, &v)) < 0 ||
	    (r = member(rd, tool, "command", K_STRING, false, &v)) < 0)
		return r;
	dut_res_path_pop(&rd->p, 0);
	return member(rd, doc, "created", K_STRING, false, &v);
}

static int read_document(struct reader *rd, struct dut_result *r)
{
	json_object *v;
	int ret;

	if ((ret = read_header(rd, r->doc)) < 0 || (ret = read_host(rd, r->doc)) < 0 ||
	    (ret = container(rd, r->doc, "target", &v)) < 0 ||
	    (ret = container(rd, r->doc, "config", &v)) < 0 ||
	    (ret = member(rd, r->doc, "phases", K_ARRAY, true, &r->phases_arr)) < 0)
		return ret;
	dut_res_path_push_key(&rd->p, "phases");
	for (size_t i = 0; i < json_object_array_length(r->phases_arr); i++) {
		size_t old = dut_res_path_push_index(&rd->p, i);

		if ((ret = read_phase(rd, r, json_object_array_get_idx(r->phases_arr, i))) < 0)
			return ret;
		dut_res_path_pop(&rd->p, old);
	}
	dut_res_path_pop(&rd->p, 0);
	return dut_res_check_finite(r->doc, &rd->p, rd->err);
}

static void offset_to_line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static size_t skip_blanks(const char *text, size_t off, size_t len)
{
	while (off < len && (text[off] == ' ' || text[off] == '\t' || text[off] == '\r' ||
			     text[off] == '\n'))
		off++;
	return off;
}

/*
 * Syntax: json-c's strict mode, valid UTF-8, one value and nothing but
 * blanks after it.  text need not be NUL-terminated.
 */
static int parse_json(const char *text, size_t len, json_object **ret, struct dut_error *err)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *doc;
	size_t end, line, col;
	const char *nul = memchr(text, '\0', len);

	if (skip_blanks(text, 0, len) == len) {
		dut_error_set(err, "empty document (expected a JSON object)");
		return -EINVAL;
	}
	if (nul) {
		offset_to_line_col(text, (size_t)(nul - text), &line, &col);
		dut_error_set(err, "line %zu, column %zu: NUL byte in the document", line, col);
		return -EINVAL;
	}
	if (len >= INT_MAX) {
		dut_error_set(err, "document of %zu bytes is too large", len);
		return -EFBIG;
	}
	/* json-c's default depth is 32; PostgreSQL plans of TPC-H Q5/Q21 nest 33 and more */
	tok = json_tokener_new_ex(DUT_RESULT_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT
#ifdef JSON_TOKENER_VALIDATE_UTF8
					    | JSON_TOKENER_VALIDATE_UTF8
#endif
	);
	doc = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!doc || jerr != json_tokener_success) {
		json_object_put(doc);
		offset_to_line_col(text, end, &line, &col);
		dut_error_set(err, "line %zu, column %zu: %s", line, col,
			      jerr == json_tokener_continue ? "unexpected end of document"
							    : json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	end = skip_blanks(text, end, len);
	if (end < len) {
		json_object_put(doc);
		offset_to_line_col(text, end, &line, &col);
		dut_error_set(err, "line %zu, column %zu: unexpected text after the document", line, col);
		return -EINVAL;
	}
	*ret = doc;
	return 0;
}

int dut_result_parse(const char *text, size_t len, struct dut_result **ret,
		     struct dut_error *err)
{
	_cleanup_(dut_result_freep) struct dut_result *r = NULL;
	struct reader rd = { .err = err };
	int ret_code;

	if (!text || !ret) {
		dut_error_set(err, "no document");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret_code = parse_json(text, len, &r->doc, err);
	if (ret_code < 0)
		return ret_code;
	ret_code = read_document(&rd, r);
	if (ret_code == -ENOMEM)
		dut_error_set(err, "out of memory reading the document");
	if (ret_code < 0)
		return ret_code;
	*ret = TAKE_PTR(r);
	return 0;
}
