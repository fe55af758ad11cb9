/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Plan-JSON reduction and fingerprint (see plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "pgload/dss/plan.h"

uint64_t dss_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The attributes that make a plan's shape, in the order they are written. */
static const char *const shape_keys[] = {
	"Strategy", "Partial Mode", "Join Type", "Parent Relationship", "Subplan Name",
	"CTE Name", "Relation Name", "Alias", "Index Name", "Scan Direction", "Command",
	"Operation",
};

struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct sbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

static int reduce_node(json_object *node, struct sbuf *b, unsigned depth, struct dut_error *err)
{
	json_object *v, *plans;
	unsigned nattr = 0;

	if (depth > 200) {
		dut_error_set(err, "plan nested deeper than 200 nodes");
		return -EINVAL;
	}
	if (!json_object_is_type(node, json_type_object) ||
	    !json_object_object_get_ex(node, "Node Type", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		dut_error_set(err, "plan node without a \"Node Type\" string");
		return -EINVAL;
	}
	puts_(b, json_object_get_string(v));
	for (size_t i = 0; i < sizeof(shape_keys) / sizeof(shape_keys[0]); i++) {
		if (!json_object_object_get_ex(node, shape_keys[i], &v) ||
		    json_object_is_type(v, json_type_null))
			continue;
		puts_(b, nattr++ ? "," : "{");
		puts_(b, shape_keys[i]);
		puts_(b, "=");
		puts_(b, json_object_get_string(v));
	}
	if (nattr)
		puts_(b, "}");
	if (json_object_object_get_ex(node, "Plans", &plans)) {
		if (!json_object_is_type(plans, json_type_array)) {
			dut_error_set(err, "\"Plans\" is not an array");
			return -EINVAL;
		}
		size_t n = json_object_array_length(plans);
		puts_(b, "(");
		for (size_t i = 0; i < n; i++) {
			if (i)
				puts_(b, ",");
			int ret = reduce_node(json_object_array_get_idx(plans, i), b, depth + 1, err);
			if (ret < 0)
				return ret;
		}
		puts_(b, ")");
	}
	return b->err;
}

int dss_plan_fingerprint(const char *explain_json, uint64_t *ret_fp, char **ret_canon,
			 struct dut_error *err)
{
	enum json_tokener_error jerr;
	json_object *doc = json_tokener_parse_verbose(explain_json, &jerr);
	json_object *top, *plan;
	struct sbuf b = { 0 };
	int ret;

	if (!doc) {
		dut_error_set(err, "EXPLAIN output is not JSON: %s", json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	top = json_object_is_type(doc, json_type_array) && json_object_array_length(doc) == 1
		? json_object_array_get_idx(doc, 0) : NULL;
	if (!top || !json_object_object_get_ex(top, "Plan", &plan)) {
		dut_error_set(err, "EXPLAIN output is not an array of one object with a \"Plan\"");
		json_object_put(doc);
		return -EINVAL;
	}
	ret = reduce_node(plan, &b, 0, err);
	json_object_put(doc);
	if (ret < 0) {
		free(b.p);
		return ret;
	}
	*ret_fp = dss_fnv1a64(b.p, b.len);
	*ret_canon = b.p;
	return 0;
}
