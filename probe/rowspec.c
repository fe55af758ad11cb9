/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bench row syntax: see rowspec.h for the grammar. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probe/rowspec.h"

const struct bench_row bench_default_rows[6] = {
	{ .pattern = PROBE_SEQ, .dir = PROBE_READ, .bs_bytes = 1u << 20, .qd = 8, .threads = 1 },
	{ .pattern = PROBE_SEQ, .dir = PROBE_WRITE, .bs_bytes = 1u << 20, .qd = 8, .threads = 1 },
	{ .pattern = PROBE_RAND, .dir = PROBE_READ, .bs_bytes = 4096, .qd = 32, .threads = 1 },
	{ .pattern = PROBE_RAND, .dir = PROBE_WRITE, .bs_bytes = 4096, .qd = 32, .threads = 1 },
	{ .pattern = PROBE_RAND, .dir = PROBE_READ, .bs_bytes = 4096, .qd = 1, .threads = 1 },
	{ .pattern = PROBE_RAND, .dir = PROBE_WRITE, .bs_bytes = 4096, .qd = 1, .threads = 1 },
};

/* Parse a decimal count that fills the whole of s (no sign, no suffix). */
static int parse_count(const char *s, unsigned long max, unsigned *ret)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v == 0 || v > max)
		return -ERANGE;
	*ret = (unsigned)v;
	return 0;
}

/* "4K", "1M", "512", "16KiB", "1MB" (binary, as CrystalDiskMark means it). */
static int parse_bs(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long long v, mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == 'k' || *end == 'K') {
		mult = 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		mult = 1024 * 1024;
		end++;
	}
	if (mult > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v == 0 || v > BENCH_ROW_MAX_BS / mult)
		return -ERANGE;
	*ret = (uint32_t)(v * mult);
	return 0;
}

/* One token, already lower-cased.  *have_dir: 0 none, 1 read, 2 write. */
static int parse_token(const char *tok, struct bench_row *r, bool *have_pattern, int *have_dir,
		       const char *spec, struct dut_error *err)
{
	int ret;

	if (!strncmp(tok, "seq", 3) || !strncmp(tok, "rnd", 3) || !strncmp(tok, "rand", 4)) {
		const char *bs = tok + (tok[1] == 'a' ? 4 : 3);

		if (*have_pattern) {
			dut_error_set(err, "row \"%s\": pattern given twice (\"%s\")", spec, tok);
			return -EINVAL;
		}
		r->pattern = tok[0] == 's' ? PROBE_SEQ : PROBE_RAND;
		ret = parse_bs(bs, &r->bs_bytes);
		if (ret < 0) {
			dut_error_set(err, "row \"%s\": block size in \"%s\" %s (expected e.g. SEQ1M, RND4K, RND16K; at most 64M)",
				      spec, tok, ret == -ERANGE ? "out of range" : "not understood");
			return ret;
		}
		if (r->bs_bytes % 512) {
			dut_error_set(err, "row \"%s\": block size %u is not a multiple of 512 bytes",
				      spec, r->bs_bytes);
			return -EINVAL;
		}
		*have_pattern = true;
		return 0;
	}
	if (tok[0] == 'q') {
		const char *num = tok + (tok[1] == 'd' ? 2 : 1);
		char qbuf[32];
		char *t = strchr(num, 't');

		if (strlen(num) >= sizeof(qbuf))
			goto bad;
		strcpy(qbuf, num);
		if (t)
			qbuf[t - num] = '\0';
		ret = parse_count(qbuf, BENCH_ROW_MAX_QD, &r->qd);
		if (ret == -ERANGE) {
			dut_error_set(err, "row \"%s\": queue depth in \"%s\" must be 1..%u", spec, tok,
				      BENCH_ROW_MAX_QD);
			return ret;
		}
		if (ret < 0)
			goto bad;
		if (t)
			return parse_token(t, r, have_pattern, have_dir, spec, err);
		return 0;
	}
	if (tok[0] == 't') {
		ret = parse_count(tok + 1, BENCH_ROW_MAX_THREADS, &r->threads);
		if (ret == -ERANGE) {
			dut_error_set(err, "row \"%s\": thread count in \"%s\" must be 1..%u", spec, tok,
				      BENCH_ROW_MAX_THREADS);
			return ret;
		}
		if (ret < 0)
			goto bad;
		return 0;
	}
	if (!strcmp(tok, "r") || !strcmp(tok, "read") || !strcmp(tok, "w") || !strcmp(tok, "write")) {
		if (*have_dir) {
			dut_error_set(err, "row \"%s\": direction given twice", spec);
			return -EINVAL;
		}
		*have_dir = tok[0] == 'r' ? 1 : 2;
		return 0;
	}
bad:
	dut_error_set(err, "row \"%s\": token \"%s\" not understood (expected SEQ<bs>|RND<bs>, Q<n>, T<n>, R|W, e.g. \"SEQ1M Q8T1 R\")",
		      spec, tok);
	return -EINVAL;
}

int bench_row_parse(const char *spec, struct bench_row *rows, size_t max, size_t *n,
		    struct dut_error *err)
{
	struct bench_row r = { .pattern = PROBE_SEQ, .dir = PROBE_READ, .qd = 1, .threads = 1 };
	bool have_pattern = false;
	int have_dir = 0;
	char buf[128];
	char *save = NULL, *tok;
	size_t len = strlen(spec);
	int ret;

	if (len >= sizeof(buf)) {
		dut_error_set(err, "row \"%.40s...\": too long", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i <= len; i++)
		buf[i] = (char)tolower((unsigned char)spec[i]);
	for (tok = strtok_r(buf, " \t-_", &save); tok; tok = strtok_r(NULL, " \t-_", &save)) {
		ret = parse_token(tok, &r, &have_pattern, &have_dir, spec, err);
		if (ret < 0)
			return ret;
	}
	if (!have_pattern) {
		dut_error_set(err, "row \"%s\": no pattern and block size (start with SEQ<bs> or RND<bs>, e.g. \"RND4K Q32T1 R\")",
			      spec);
		return -EINVAL;
	}
	if (*n + (have_dir ? 1 : 2) > max) {
		dut_error_set(err, "row \"%s\": too many rows (at most %zu)", spec, max);
		return -ENOSPC;
	}
	if (have_dir) {
		r.dir = have_dir == 1 ? PROBE_READ : PROBE_WRITE;
		rows[(*n)++] = r;
	} else {
		r.dir = PROBE_READ;
		rows[(*n)++] = r;
		r.dir = PROBE_WRITE;
		rows[(*n)++] = r;
	}
	return 0;
}

int bench_rows_parse_list(const char *list, struct bench_row *rows, size_t max, size_t *n,
			  struct dut_error *err)
{
	const char *p = list;

	if (!*list) {
		dut_error_set(err, "empty row list (expected e.g. \"SEQ1M Q8T1 R,RND4K Q32T1 W\")");
		return -EINVAL;
	}
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char spec[128];
		int ret;

		while (len && isspace((unsigned char)*p)) {
			p++;
			len--;
		}
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len == 0 || len >= sizeof(spec)) {
			dut_error_set(err, "row list \"%s\": %s row", list, len ? "overlong" : "empty");
			return -EINVAL;
		}
		memcpy(spec, p, len);
		spec[len] = '\0';
		if (!strcasecmp(spec, "default")) {
			if (*n + (sizeof(bench_default_rows) / sizeof(bench_default_rows[0])) > max) {
				dut_error_set(err, "row list \"%s\": too many rows (at most %zu)", list, max);
				return -ENOSPC;
			}
			for (size_t i = 0; i < (sizeof(bench_default_rows) / sizeof(bench_default_rows[0])); i++)
				rows[(*n)++] = bench_default_rows[i];
		} else {
			ret = bench_row_parse(spec, rows, max, n, err);
			if (ret < 0)
				return ret;
		}
		p += (comma ? (size_t)(comma - p) + 1 : strlen(p));
		if (comma && !*p) {
			dut_error_set(err, "row list \"%s\": trailing comma", list);
			return -EINVAL;
		}
	}
	return 0;
}

char *bench_row_name(const struct bench_row *r, char *buf, size_t len)
{
	char bs[16];

	if (r->bs_bytes % (1u << 20) == 0)
		snprintf(bs, sizeof(bs), "%uM", r->bs_bytes >> 20);
	else if (r->bs_bytes % 1024 == 0)
		snprintf(bs, sizeof(bs), "%uK", r->bs_bytes >> 10);
	else
		snprintf(bs, sizeof(bs), "%u", r->bs_bytes);
	snprintf(buf, len, "%s%s Q%uT%u %s", r->pattern == PROBE_SEQ ? "SEQ" : "RND", bs, r->qd,
		 r->threads, r->dir == PROBE_READ ? "R" : "W");
	return buf;
}
