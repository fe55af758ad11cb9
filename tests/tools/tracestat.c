/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracestat FILE OP: for the records of op OP (a name of lib/trace.h, e.g.
 * "open"), print "RECORDS WITH_DUTFS_NS MEDIAN_DUTFS_NS" (the median of those
 * that have it, 0 when none).  For the tools integration tests: the report
 * shows dutfs time of reads, writes and fsyncs only.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/trace.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct dut_error err = { { 0 } };
	struct dut_trace *t = NULL;
	enum dut_trace_op op;
	uint32_t *v;
	size_t n = 0, k = 0;

	if (argc != 3 || dut_trace_op_from_name(argv[2], &op) < 0) {
		fprintf(stderr, "usage: tracestat FILE OP\n");
		return 2;
	}
	if (dut_trace_load(argv[1], &t, &err) < 0) {
		fprintf(stderr, "tracestat: %s: %s\n", argv[1], err.msg);
		return 1;
	}
	v = malloc((t->nrecs + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "tracestat: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		if (t->recs[i].op != op)
			continue;
		n++;
		if (t->recs[i].dutfs_ns)
			v[k++] = t->recs[i].dutfs_ns;
	}
	qsort(v, k, sizeof(*v), cmp_u32);
	printf("%zu %zu %u\n", n, k, k ? v[(k - 1) / 2] : 0);
	free(v);
	dut_trace_free(t);
	return 0;
}
