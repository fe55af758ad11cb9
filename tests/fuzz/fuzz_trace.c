/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: dut_trace_parse() on arbitrary bytes.  It must return
 * 0 or a negative errno without crashing, and what it returns must hold the
 * reader's promises: records sorted by ts, markers sorted by ts, files sorted
 * by unique id, valid_bytes within the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dut_trace *t = NULL;
	struct dut_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = dut_trace_parse(data, size, &t, &err);
	if (r < 0) {
		if (t || !err.msg[0])
			abort(); /* an error must come with a message and no result */
		return 0;
	}
	if (t->valid_bytes > size || (t->truncated && !err.msg[0]))
		abort();
	for (size_t i = 1; i < t->nrecs; i++)
		if (t->recs[i - 1].ts_ns > t->recs[i].ts_ns)
			abort();
	for (size_t i = 1; i < t->nmarkers; i++)
		if (t->markers[i - 1].ts_ns > t->markers[i].ts_ns)
			abort();
	for (size_t i = 0; i < t->nfiles; i++) {
		if (i > 0 && t->files[i - 1].id >= t->files[i].id)
			abort();
		if (dut_trace_file_by_id(t, t->files[i].id) != &t->files[i] || !t->files[i].path[0])
			abort();
	}
	for (size_t i = 0; i < t->nmarkers; i++)
		if (!t->markers[i].label[0])
			abort();
	dut_trace_free(t);
	return 0;
}
