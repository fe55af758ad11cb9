/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: dut_trace_parse() and the streaming reader on arbitrary
 * bytes, 1.x RECORDS, 2.0 CRECORDS and 2.1 CSPAN frames alike.  Both must
 * return 0 or a negative errno without crashing, agree on which (with the
 * same message), and what they return must hold the reader's promises:
 * records sorted by ts, the stream giving the parsed records in the parsed
 * order, markers sorted by ts, files sorted by unique id, valid_bytes
 * within the input.  The stream may agree late: a damaged CRECORDS frame
 * after a CSPAN frame is not decoded at open, so the stream opens and its
 * merge fails, with the loader's error and message
 * (dut_trace_stream_error).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_stream(const uint8_t *data, size_t size, const struct dut_trace *t, int r,
			 const struct dut_error *err)
{
	struct dut_trace_stream *s = NULL;
	struct dut_error err2;
	const struct dut_trace_rec *recs;
	size_t got = 0, n;
	int r2;

	memset(&err2, 0, sizeof(err2));
	r2 = dut_trace_stream_open_buf(data, size, &s, &err2);
	if (r2 < 0) {
		if (r2 != r || strcmp(err->msg, err2.msg) != 0 || s)
			abort(); /* the stream refuses what the loader refuses, with the same words */
		return;
	}
	if (r == 0 && strcmp(err->msg, err2.msg) != 0)
		abort(); /* the same truncation warning */
	if (r == 0 && dut_trace_stream_meta(s)->nrecs != t->nrecs)
		abort();
	while ((r2 = dut_trace_stream_next(s, &recs, &n)) == 0 && n) {
		for (size_t i = 0; r == 0 && i < n; i++) {
			const struct dut_trace_rec *a = &recs[i], *b = &t->recs[got + i];

			if (got + i >= t->nrecs || a->ts_ns != b->ts_ns || a->offset != b->offset ||
			    a->lat_ns != b->lat_ns || a->len != b->len || a->result != b->result ||
			    a->file_id != b->file_id || a->pid != b->pid || a->op != b->op ||
			    a->flags != b->flags || a->dutfs_ns != b->dutfs_ns)
				abort();
		}
		got += n;
	}
	dut_trace_stream_error(s, &err2);
	if (r < 0) {
		/* the loader refused a frame the scan took on its span: the merge must, alike */
		if (r2 != r || strcmp(err->msg, err2.msg) != 0)
			abort();
	} else if (r2 != 0 || got != t->nrecs) {
		abort();
	}
	dut_trace_stream_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dut_trace *t = NULL;
	struct dut_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = dut_trace_parse(data, size, &t, &err);
	check_stream(data, size, t, r, &err);
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
