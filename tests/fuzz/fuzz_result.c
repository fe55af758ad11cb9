/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the result-document reader.  Arbitrary bytes must
 * never crash it; a document it accepts must serialise, read back, and
 * serialise to the same bytes with an equal tree and equal accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/result.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "invariant failed: %s\n", #cond);  \
			abort();                                           \
		}                                                          \
	} while (0)

static void check_same_accessors(const struct dut_result *a, const struct dut_result *b)
{
	CHECK(dut_result_phase_count(a) == dut_result_phase_count(b));
	for (size_t i = 0; i < dut_result_phase_count(a); i++) {
		struct dut_result_phase *pa = dut_result_phase_at(a, i);
		struct dut_result_phase *pb = dut_result_phase_at(b, i);
		json_object *metrics;
		uint64_t da = 0, db = 0;

		CHECK(strcmp(dut_phase_name(pa), dut_phase_name(pb)) == 0);
		CHECK(dut_result_find_phase(a, dut_phase_name(pa)) == pa);
		CHECK(dut_phase_get_duration(pa, &da) == dut_phase_get_duration(pb, &db) && da == db);
		CHECK(json_object_object_get_ex(json_object_array_get_idx(
			json_object_object_get(dut_result_json(a), "phases"), i), "metrics", &metrics));
		json_object_object_foreach(metrics, name, m) {
			double va, vb;

			(void)m;
			CHECK(dut_phase_get_metric(pa, name, &va, NULL) == 0);
			CHECK(dut_phase_get_metric(pb, name, &vb, NULL) == 0);
			CHECK(memcmp(&va, &vb, sizeof(va)) == 0);
		}
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct dut_result *r = NULL, *r2 = NULL;
	struct dut_error err = { { 0 } };
	char *text = NULL, *text2 = NULL;
	int ret;

	if (size > 1 << 20)
		return 0;
	ret = dut_result_parse((const char *)data, size, &r, &err);
	if (ret < 0) {
		/* rejected: no result, and a message saying why */
		CHECK(r == NULL && err.msg[0] != '\0');
		return 0;
	}
	CHECK(r != NULL);
	CHECK(dut_result_tool_name(r) != NULL && dut_result_tool_version(r) != NULL);
	CHECK(dut_result_to_string(r, &text) == 0);
	ret = dut_result_parse(text, strlen(text), &r2, &err);
	if (ret < 0) {
		fprintf(stderr, "re-parse failed: %s\n%s\n", err.msg, text);
		abort();
	}
	CHECK(json_object_equal(dut_result_json(r), dut_result_json(r2)));
	check_same_accessors(r, r2);
	CHECK(dut_result_to_string(r2, &text2) == 0);
	CHECK(strcmp(text, text2) == 0);
	free(text);
	free(text2);
	dut_result_free(r);
	dut_result_free(r2);
	return 0;
}
