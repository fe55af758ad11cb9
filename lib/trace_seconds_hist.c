/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The side file's histogram column (lib/trace.h): a latency histogram of
 * one second, class and kind as its non-empty buckets (pure: no I/O).
 *
 * A second's latencies fill a few dozen to a few hundred neighbouring
 * buckets, so the index is written as the step from the previous non-empty
 * bucket (1 to 3 digits) and a count of 1 is left out: about 4 bytes per
 * bucket, against 9 percentile columns that cannot be combined.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "lib/trace.h"

size_t dut_trace_sec_hist_encode(const struct dut_hist *h, char *buf)
{
	size_t len = 0;
	unsigned prev = 0;
	bool first = true;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++) {
		uint64_t c = h->buckets[i];

		if (!c)
			continue;
		if (c > UINT32_MAX)
			c = UINT32_MAX; /* more than 4 billion records in a second: not from one writer */
		len += (size_t)sprintf(buf + len, "%s%u", first ? "" : ",", first ? i : i - prev);
		if (c != 1)
			len += (size_t)sprintf(buf + len, ":%" PRIu64, c);
		prev = i;
		first = false;
	}
	if (first)
		buf[len++] = '-';
	buf[len] = '\0';
	return len;
}

/* A decimal number of at most 10 digits from s[*at] up to end; 0 or -EBADMSG. */
static int num(const char *s, size_t end, size_t *at, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = *at;

	if (i >= end || s[i] < '0' || s[i] > '9')
		return -EBADMSG;
	for (; i < end && s[i] >= '0' && s[i] <= '9'; i++) {
		if (i - *at >= 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*at = i;
	*ret = v;
	return 0;
}

int dut_trace_sec_hist_parse(const char *s, size_t n, struct dut_trace_sec_bucket *out,
			     size_t *ret_n)
{
	size_t at = 0, k = 0;
	uint64_t idx = 0;

	if (n == 1 && s[0] == '-') {
		*ret_n = 0;
		return 0;
	}
	while (at < n) {
		uint64_t step, count = 1;

		if (k && s[at++] != ',')
			return -EBADMSG;
		if (num(s, n, &at, &step) < 0 || (k && step == 0))
			return -EBADMSG;
		idx = k ? idx + step : step;
		if (idx >= DUT_HIST_NBUCKETS)
			return -EBADMSG;
		if (at < n && s[at] == ':') {
			at++;
			if (num(s, n, &at, &count) < 0 || count == 0 || count > UINT32_MAX)
				return -EBADMSG;
		}
		out[k].idx = (uint32_t)idx;
		out[k].count = (uint32_t)count;
		k++;
	}
	if (k == 0)
		return -EBADMSG; /* empty is "-" */
	*ret_n = k;
	return 0;
}

void dut_trace_sec_hist_merge(struct dut_hist *h, const struct dut_trace_sec_bucket *b, size_t n,
			      uint64_t min_ns, uint64_t max_ns, uint64_t sum_ns)
{
	uint64_t count = 0;

	for (size_t i = 0; i < n; i++) {
		h->buckets[b[i].idx] += b[i].count;
		count += b[i].count;
	}
	if (!count)
		return;
	if (min_ns < h->min)
		h->min = min_ns;
	if (max_ns > h->max)
		h->max = max_ns;
	h->sum = dut_hist_sat_add64(h->sum, sum_ns);
	h->count += count;
}
