/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals shared by result.c (building, accessors) and result_read.c
 * (parsing and validation).  Not for use outside lib/result*.c.
 *
 * The json-c tree is the document; these structs cache borrowed pointers
 * into it.  A phase's metrics/latency/series/extra members always exist
 * (the reader adds empty ones), so the pointers below are never NULL.
 */
#ifndef DUT_RESULT_PRIV_H
#define DUT_RESULT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/result.h"

struct dut_series {
	char *name;
	json_object *columns; /* borrowed from the phase's "series" member */
	json_object *rows;
	size_t ncols;
};

struct dut_result_phase {
	json_object *obj;
	json_object *metrics, *latency, *series_obj, *extra;
	struct dut_series **series;
	size_t nseries;
};

struct dut_result {
	json_object *doc;
	json_object *phases_arr;
	struct dut_result_phase **phases;
	size_t nphases;
};

/* Latency members that are uint64 nanoseconds (or a count), in schema order. */
#define DUT_RES_LATENCY_U64_KEYS 8
extern const char *const dut_res_latency_u64_keys[DUT_RES_LATENCY_U64_KEYS];

/* Where in the document a check is, for error messages ("phases[1].name"). */
struct dut_res_path {
	char buf[384];
	size_t len;
};

size_t dut_res_path_push_key(struct dut_res_path *p, const char *key);
size_t dut_res_path_push_index(struct dut_res_path *p, size_t i);
void dut_res_path_pop(struct dut_res_path *p, size_t old);
const char *dut_res_path_str(const struct dut_res_path *p);

/* Add val under key; takes val (put on failure).  -ENOMEM when val is NULL. */
int dut_res_add_member(json_object *obj, const char *key, json_object *val);
int dut_res_push_phase(struct dut_result *r, struct dut_result_phase *ph);
int dut_res_push_series(struct dut_result_phase *ph, struct dut_series *s);
void dut_res_series_free(struct dut_series *s);
/* Serialise this array on one line (series rows, columns, units). */
void dut_res_make_compact(json_object *array);
/* Every double in the tree is finite; else -EINVAL with the path in err. */
int dut_res_check_finite(json_object *o, struct dut_res_path *p, struct dut_error *err);

#endif
