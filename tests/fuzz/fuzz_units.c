/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for lib/units: every parser on arbitrary text, every
 * formatter on arbitrary numbers.  Invariants checked (abort on violation):
 *   - a parser returns 0, -EINVAL or -ERANGE; on error it leaves the output
 *     alone and writes a non-empty message that fits dut_error.msg; with
 *     err == NULL it returns the same;
 *   - a parsed size also parses as a rate when "/s" is appended, to the same
 *     value; printed sizes, durations and rates parse back within the
 *     precision printed (2 decimals for sizes and durations, 1 for rates);
 *     a size printed without decimals parses back exactly;
 *   - percentages are within 0..100, rates finite and non-negative;
 *   - formatters always NUL-terminate inside the buffer, whatever its length.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                        \
			abort();                                                 \
		}                                                                \
	} while (0)

static void check_error(int r, const struct dut_error *err, bool output_untouched)
{
	CHECK(r == -EINVAL || r == -ERANGE);
	CHECK(output_untouched);
	CHECK(err->msg[0] != '\0');
	CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
}

/* Parse text printed by a formatter as a rate (it accepts fractional bytes). */
static double reparse_rate(const char *printed, const char *suffix)
{
	char buf[DUT_FMT_LEN + 4];
	double d = -1;
	struct dut_error err = { "" };

	snprintf(buf, sizeof(buf), "%s%s", printed, suffix);
	CHECK(dut_parse_rate(buf, &d, &err) == 0);
	return d;
}

static void check_size(const char *s, uint64_t v)
{
	char buf[DUT_FMT_LEN], rate[DUT_FMT_LEN + 4];
	double d;
	uint64_t back;

	/* the same text read as a rate gives the same number */
	if (s && strlen(s) < DUT_FMT_LEN) {
		snprintf(rate, sizeof(rate), "%s/s", s);
		CHECK(dut_parse_rate(rate, &d, NULL) == 0);
		CHECK(fabs(d - (double)v) <= (double)v * 1e-15);
	}
	dut_format_size(v, buf, sizeof(buf));
	d = reparse_rate(buf, "/s");
	CHECK(fabs(d - (double)v) <= 0.005 * (double)v * (1 + 1e-9) + 1e-9);
	if (!strchr(buf, '.')) {
		CHECK(dut_parse_size(buf, &back, NULL) == 0);
		CHECK(back == v);
	}
	dut_format_size_si(v, buf, sizeof(buf));
	d = reparse_rate(buf, "/s");
	CHECK(fabs(d - (double)v) <= 0.005 * (double)v * (1 + 1e-9) + 1e-9);
	if (!strchr(buf, '.')) {
		CHECK(dut_parse_size(buf, &back, NULL) == 0);
		CHECK(back == v);
	}
}

static void check_duration(uint64_t v)
{
	char buf[DUT_FMT_LEN];
	uint64_t back = 0;
	struct dut_error err = { "" };

	dut_format_duration(v, buf, sizeof(buf));
	CHECK(dut_parse_duration(buf, &back, &err) == 0);
	CHECK(fabs((double)back - (double)v) <= 0.005 * (double)v * (1 + 1e-9) + 1);
}

static void check_rate(double v)
{
	char buf[DUT_FMT_LEN];
	double back;

	CHECK(isfinite(v) && v >= 0 && v <= 0x1p64);
	dut_format_rate(v, buf, sizeof(buf));
	back = reparse_rate(buf, "");
	CHECK(fabs(back - v) <= 0.05 * (v > 1 ? v : 1) * (1 + 1e-9));
}

static void parse_all(const char *s)
{
	struct dut_error err;
	uint64_t u = 7;
	double d = 7;
	int r;

	memset(&err, 0, sizeof(err));
	r = dut_parse_size(s, &u, &err);
	CHECK(r == dut_parse_size(s, &u, NULL));
	if (r == 0)
		check_size(s, u);
	else
		check_error(r, &err, u == 7);

	memset(&err, 0, sizeof(err));
	r = dut_parse_rate(s, &d, &err);
	CHECK(r == dut_parse_rate(s, &d, NULL));
	if (r == 0)
		check_rate(d);
	else
		check_error(r, &err, d == 7);

	u = 7;
	memset(&err, 0, sizeof(err));
	r = dut_parse_duration(s, &u, &err);
	CHECK(r == dut_parse_duration(s, &u, NULL));
	if (r == 0)
		check_duration(u);
	else
		check_error(r, &err, u == 7);

	d = 7;
	memset(&err, 0, sizeof(err));
	r = dut_parse_percent(s, &d, &err);
	CHECK(r == dut_parse_percent(s, &d, NULL));
	if (r == 0)
		CHECK(d >= 0 && d <= 100);
	else
		check_error(r, &err, d == 7);
}

/* Formatters on the raw bytes read as numbers, into buffers of every length. */
static void format_raw(const uint8_t *data, size_t size)
{
	char buf[DUT_FMT_LEN + 1];
	uint64_t u = 0;
	double d;

	memcpy(&u, data, size < sizeof(u) ? size : sizeof(u));
	memcpy(&d, &u, sizeof(d));
	for (size_t len = 1; len <= DUT_FMT_LEN; len += (len < 4 ? 1 : 7)) {
		buf[len] = 'Z';
		CHECK(strlen(dut_format_size(u, buf, len)) < len && buf[len] == 'Z');
		CHECK(strlen(dut_format_size_si(u, buf, len)) < len && buf[len] == 'Z');
		CHECK(strlen(dut_format_duration(u, buf, len)) < len && buf[len] == 'Z');
		CHECK(strlen(dut_format_rate(d, buf, len)) < len && buf[len] == 'Z');
		CHECK(strlen(dut_format_count(d, buf, len)) < len && buf[len] == 'Z');
	}
	/* the full-size buffer never truncates a size or duration */
	CHECK(strlen(dut_format_size(u, buf, DUT_FMT_LEN)) < DUT_FMT_LEN - 1);
	CHECK(strlen(dut_format_duration(u, buf, DUT_FMT_LEN)) < DUT_FMT_LEN - 1);
	check_duration(u);
	check_size(NULL, u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	parse_all(s);
	free(s);
	format_raw(data, size);
	return 0;
}
