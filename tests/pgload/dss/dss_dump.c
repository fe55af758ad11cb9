/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helper: read a `pgload dss` result document with lib/result and
 * print one line per fact, for the integration test's shell checks:
 *   phase NAME STATUS
 *   table NAME ROWS                      (load phase)
 *   step PHASE STATUS ROWS NAME          (keys, analyze, rf phases)
 *   query Q REP STATUS ROWS FINGERPRINT SHAPE   (queries phase)
 * Exit 1 when the document does not parse.
 */
#include <stdio.h>
#include <string.h>

#include "lib/result.h"

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "-";
}

int main(int argc, char **argv)
{
	struct dut_result *r;
	struct dut_error err = { "" };

	if (argc != 2) {
		fprintf(stderr, "usage: dss_dump RESULT.json\n");
		return 2;
	}
	if (dut_result_read_file(argv[1], &r, &err) < 0) {
		fprintf(stderr, "dss_dump: %s: %s\n", argv[1], err.msg);
		return 1;
	}
	for (size_t i = 0; i < dut_result_phase_count(r); i++) {
		struct dut_result_phase *ph = dut_result_phase_at(r, i);
		json_object *extra = dut_phase_extra(ph), *v;

		printf("phase %s %s\n", dut_phase_name(ph), str(extra, "status"));
		if (json_object_object_get_ex(extra, "tables", &v)) {
			json_object_object_foreach(v, name, t)
				printf("table %s %s\n", name, str(t, "rows"));
		}
		if (json_object_object_get_ex(extra, "steps", &v)) {
			for (size_t j = 0; j < json_object_array_length(v); j++) {
				json_object *st = json_object_array_get_idx(v, j);
				printf("step %s %s %s %s\n", dut_phase_name(ph), str(st, "status"),
				       str(st, "rows"), str(st, "name"));
			}
		}
		if (json_object_object_get_ex(extra, "queries", &v)) {
			for (size_t j = 0; j < json_object_array_length(v); j++) {
				json_object *q = json_object_array_get_idx(v, j);
				printf("query %s %s %s %s %s %s\n", str(q, "query"), str(q, "rep"),
				       str(q, "status"), str(q, "rows"), str(q, "plan_fingerprint"),
				       str(q, "plan_shape"));
			}
		}
	}
	dut_result_free(r);
	return 0;
}
