/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the shaping rules parser (fuse/shape/rules.c, read
 * through libinih), then the engine built from whatever parsed.
 * Invariants checked (abort on violation):
 *   - the parser returns 0 or -EINVAL (never crashes, never another error
 *     for input under 64 KiB); on error the message names the source and a
 *     line ("fuzz.ini:N: ") and the rules pointer is untouched;
 *   - a parsed file has at least one rule and every rule names a model or
 *     a fault;
 *   - every request through the engine completes no earlier than it
 *     arrived, short lengths never exceed the request, injected errors are
 *     negative errnos;
 *   - crash twice is -EALREADY, recover after crash succeeds.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/engine.h"
#include "fuse/shape/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                        \
			abort();                                                 \
		}                                                                \
	} while (0)

static void drive(struct shape_engine *e, const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "base/5/16397", "pg_wal/000000010000000000000001",
					     "base/5/16397_vm", "pg_xact/0000", "x" };
	uint64_t now = 1000;

	for (size_t i = 0; i + 4 <= size && i < 256; i += 4) {
		struct shape_io io = {
			.op = (enum shape_op)(data[i] % SHAPE_OP_COUNT),
			.cls = (enum shape_class)(data[i + 1] % SHAPE_CLASS_COUNT),
			.path = paths[data[i + 2] % 5],
			.file_key = data[i + 2] % 3,
			.offset = (uint64_t)data[i + 3] << 16,
			.len = ((uint64_t)data[i] << 8) + 1,
			.now_ns = now,
		};
		struct shape_verdict v;

		shape_engine_submit(e, &io, &v);
		CHECK(v.done_ns >= io.now_ns);
		CHECK(v.len <= io.len);
		CHECK(v.err <= 0 && v.err > -4096);
		shape_engine_complete(e, &io, &v, v.err ? v.err : (int64_t)v.len);
		now += (uint64_t)data[i + 1] * 100000;
	}
	CHECK(shape_engine_crash(e) == 0 || shape_engine_crashed(e));
	CHECK(shape_engine_crash(e) == -EALREADY);
	CHECK(shape_engine_recover(e) == 0);
	struct shape_discard *d;
	size_t n;

	shape_engine_take_plan(e, &d, &n);
	free(d);
	json_object_put(shape_engine_stats_json(e));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shape_rules *rs = (struct shape_rules *)&size;   /* sentinel: must stay */
	struct shape_engine *e = NULL;
	struct dut_error err;
	int r;

	if (size > 65536)
		return 0;
	memset(&err, 0, sizeof(err));
	r = shape_rules_parse((const char *)data, size, "fuzz.ini", &rs, &err);
	if (r < 0) {
		CHECK(r == -EINVAL);
		CHECK(rs == (struct shape_rules *)&size);
		CHECK(strncmp(err.msg, "fuzz.ini:", 9) == 0 && err.msg[9] >= '0' && err.msg[9] <= '9');
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(rs->nrules >= 1);
	for (unsigned i = 0; i < rs->nrules; i++)
		CHECK(rs->rules[i].model || rs->rules[i].nfaults);
	CHECK(shape_engine_new(rs, &e) == 0);
	drive(e, data, size);
	shape_engine_free(e);
	return 0;
}
