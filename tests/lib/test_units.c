/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/units.h"
#include "tests/cu_main.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)
#define PiB (UINT64_C(1) << 50)

static void test_sizes_parse_iec_and_si_exactly(void)
{
	static const struct {
		const char *in;
		uint64_t bytes;
	} rows[] = {
		{ "0", 0 }, { "1", 1 }, { "000123", 123 }, { "512b", 512 }, { "512B", 512 },
		{ "1.0", 1 }, { "1.000000000000000000000000000000", 1 },
		/* IEC: bare letter, Ki, KiB, any case (dd and fio: 4k = 4096) */
		{ "4k", 4 * KiB }, { "4K", 4 * KiB }, { "4Ki", 4 * KiB }, { "4KiB", 4 * KiB },
		{ "4kib", 4 * KiB }, { "4KIB", 4 * KiB }, { "16KiB", 16 * KiB },
		{ "1M", MiB }, { "1m", MiB }, { "1MiB", MiB }, { "1.25M", 1310720 },
		{ "8G", 8 * GiB }, { "8g", 8 * GiB }, { "1.5GiB", 1610612736 },
		{ "1T", TiB }, { "2TiB", 2 * TiB }, { "1P", PiB }, { "1PiB", PiB },
		{ "16383P", 16383 * PiB },
		/* SI: the two-letter B forms */
		{ "4kB", 4000 }, { "4KB", 4000 }, { "4kb", 4000 }, { "200MB", 200000000 },
		{ "1.5GB", 1500000000 }, { "1TB", UINT64_C(1000000000000) },
		{ "1PB", UINT64_C(1000000000000000) }, { "1.234kB", 1234 },
		/* fractions that come out whole */
		{ ".5k", 512 }, { "0.5k", 512 }, { "1.50000k", 1536 }, { "0.0009765625k", 1 },
		{ "0.001kB", 1 }, { "2.5MB", 2500000 },
		/* one optional space before the unit */
		{ "16 KiB", 16 * KiB }, { "4 k", 4 * KiB }, { "200 MB", 200000000 }, { "0 B", 0 },
		/* limits */
		{ "18446744073709551615", UINT64_MAX }, { "18446744073709551615B", UINT64_MAX },
		{ "1.5P", PiB + PiB / 2 }, { "16383.5PiB", 16383 * PiB + PiB / 2 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_error err = { "" };
		uint64_t v = 42;
		int r;

		r = dut_parse_size(rows[i].in, &v, &err);
		CU_CHECK(r == 0, "\"%s\": ret %d (%s)", rows[i].in, r, err.msg);
		CU_CHECK(r != 0 || v == rows[i].bytes, "\"%s\": %" PRIu64 ", want %" PRIu64,
			 rows[i].in, v, rows[i].bytes);
	}
}

struct bad_row {
	const char *in;
	int ret;
	const char *quoted;     /* must appear in err.msg, e.g. "unknown unit \"kx\"" */
};

static bool printable(const char *s)
{
	if (!s || strlen(s) > 80)
		return false;
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f || *s == '"' || *s == '\\')
			return false;
	return true;
}

/* s in double quotes, in a static buffer */
static const char *quoted(const char *s)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "\"%s\"", s);
	return buf;
}

/* Run a table of rejected inputs through a parser; out must stay untouched. */
#define CHECK_BAD_ROWS(rows, parse, type, what)                                          \
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {                              \
		struct dut_error err = { "" };                                           \
		type v = 42;                                                             \
		int r = parse(rows[i].in, &v, &err);                                     \
		CU_CHECK(r == rows[i].ret, what " \"%s\": ret %d, want %d (%s)",          \
			 rows[i].in ? rows[i].in : "(null)", r, rows[i].ret, err.msg);    \
		CU_CHECK(v == 42, what " \"%s\": output written on error", rows[i].in);  \
		CU_CHECK(strstr(err.msg, rows[i].quoted) != NULL,                        \
			 what " \"%s\": message \"%s\" lacks '%s'", rows[i].in, err.msg,  \
			 rows[i].quoted);                                                 \
		CU_CHECK(!printable(rows[i].in) || strstr(err.msg, quoted(rows[i].in)),  \
			 what " \"%s\": message \"%s\" does not quote the input",         \
			 rows[i].in, err.msg);                                            \
		CU_CHECK(strncmp(err.msg, what " \"", strlen(what) + 2) == 0,             \
			 what " \"%s\": message \"%s\" does not start with the kind",       \
			 rows[i].in, err.msg);                                            \
		CU_CHECK(strchr(err.msg, '(') != NULL,                                   \
			 what " \"%s\": message \"%s\" has no hint", rows[i].in, err.msg); \
	}

static void test_sizes_reject_bad_input_quoting_it(void)
{
	static const struct bad_row rows[] = {
		{ "", -EINVAL, "size \"\": empty" },
		{ NULL, -EINVAL, "empty" },
		{ " ", -EINVAL, "\" \": leading or trailing white space" },
		{ "   ", -EINVAL, "\"   \"" },
		{ " 4k", -EINVAL, "\" 4k\"" },
		{ "4k ", -EINVAL, "\"4k \"" },
		{ "4k\n", -EINVAL, "\"4k\\x0a\"" },
		{ "\t4k", -EINVAL, "\"\\x094k\"" },
		{ "-1", -ERANGE, "\"-1\": must not be negative" },
		{ "-4k", -ERANGE, "\"-4k\"" },
		{ "18446744073709551616", -ERANGE, "\"18446744073709551616\": number too large" },
		{ "99999999999999999999999k", -ERANGE, "number too large" },
		{ "16384P", -ERANGE, "\"16384P\": too large" },
		{ "17179869184G", -ERANGE, "\"17179869184G\"" },
		{ "18446744073709551615k", -ERANGE, "too large" },
		{ "1.3k", -EINVAL, "\"1.3k\": not a whole number of bytes (it is 1331.2 bytes)" },
		{ "1.5", -EINVAL, "\"1.5\": not a whole number of bytes" },
		{ "0.1B", -EINVAL, "not a whole number" },
		{ "15.999999999999999999P", -EINVAL, "not a whole number" },
		{ "1.0000000000000000000001k", -EINVAL, "too many decimal places in \"0000000000000000000001\"" },
		{ "4kx", -EINVAL, "\"4kx\": unknown unit \"kx\"" },
		{ "4 k b", -EINVAL, "unknown unit \"k b\"" },
		{ "4  k", -EINVAL, "unknown unit \" k\"" },
		{ "4kib/s", -EINVAL, "unknown unit \"kib/s\"" },
		{ "4KiBB", -EINVAL, "unknown unit \"KiBB\"" },
		{ "12 parsecs", -EINVAL, "size \"12 parsecs\": unknown unit \"parsecs\" (expected" },
		{ "16E", -EINVAL, "unknown unit \"E\"" },
		{ "1e9", -EINVAL, "unknown unit \"e9\"" },
		{ "4\xff", -EINVAL, "unknown unit \"\\xff\"" },
		{ "nan", -EINVAL, "\"nan\": not a number" },
		{ "NaN", -EINVAL, "\"NaN\"" },
		{ "inf", -EINVAL, "\"inf\"" },
		{ "-inf", -ERANGE, "\"-inf\"" },
		{ "0x10", -EINVAL, "\"0x10\": hexadecimal is not supported" },
		{ "0X1f", -EINVAL, "hexadecimal" },
		{ "1.2.3", -EINVAL, "\"1.2.3\": more than one decimal point" },
		{ "1..2", -EINVAL, "\"1..2\": no digits after the decimal point" },
		{ "5.", -EINVAL, "\"5.\": no digits after" },
		{ ".", -EINVAL, "\".\"" },
		{ "k", -EINVAL, "\"k\": not a number" },
		{ "KiB", -EINVAL, "\"KiB\": not a number" },
		{ "+5", -EINVAL, "\"+5\": not a number" },
		{ "four", -EINVAL, "\"four\"" },
	};

	CHECK_BAD_ROWS(rows, dut_parse_size, uint64_t, "size");
}

static void test_rates_parse(void)
{
	static const struct {
		const char *in;
		double bps;
	} rows[] = {
		{ "200MB/s", 200e6 }, { "200 MB/s", 200e6 }, { "1GiB/s", 1073741824.0 },
		{ "1.5GB/s", 1.5e9 }, { "1.5k/s", 1536 }, { "1.3k/s", 1331.2 },
		{ "100/s", 100 }, { "0/s", 0 }, { "4kB/s", 4000 }, { "512 B/s", 512 },
		{ "0.5/s", 0.5 }, { "16383P/s", 16383.0 * 0x1p50 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_error err = { "" };
		double v = -1;
		int r = dut_parse_rate(rows[i].in, &v, &err);

		CU_CHECK(r == 0, "\"%s\": ret %d (%s)", rows[i].in, r, err.msg);
		CU_CHECK(fabs(v - rows[i].bps) <= 1e-12 * rows[i].bps, "\"%s\": %.6f, want %.6f",
			 rows[i].in, v, rows[i].bps);
	}
}

static void test_rates_reject_bad_input_quoting_it(void)
{
	static const struct bad_row rows[] = {
		{ "", -EINVAL, "rate \"\": empty" },
		{ "200MB", -EINVAL, "\"200MB\": missing \"/s\"" },
		{ "200", -EINVAL, "\"200\": missing" },
		{ "200MB/sec", -EINVAL, "unknown unit \"MB/sec\"" },
		{ "200MB/S", -EINVAL, "unknown unit \"MB/S\"" },
		{ "200 MB /s", -EINVAL, "unknown unit \"MB \"" },
		{ "/s", -EINVAL, "\"/s\": not a number" },
		{ "MB/s", -EINVAL, "\"MB/s\": not a number" },
		{ "-1MB/s", -ERANGE, "\"-1MB/s\": must not be negative" },
		{ "20000P/s", -ERANGE, "\"20000P/s\": too large" },
		{ "1e9/s", -EINVAL, "unknown unit \"e9\"" },
		{ "nan/s", -EINVAL, "\"nan/s\"" },
		{ "1.2.3MB/s", -EINVAL, "more than one decimal point" },
		{ "200MB/s ", -EINVAL, "white space" },
	};

	CHECK_BAD_ROWS(rows, dut_parse_rate, double, "rate");
}

static void test_durations_parse(void)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} rows[] = {
		{ "0", 0 }, { "30", UINT64_C(30000000000) }, { "1.5", 1500000000 },
		{ "500ms", 500000000 }, { "1.5s", 1500000000 }, { "2m", UINT64_C(120000000000) },
		{ "1h", UINT64_C(3600000000000) }, { "1.5h", UINT64_C(5400000000000) },
		{ "100ns", 100 }, { "250us", 250000 }, { "250\xc2\xb5s", 250000 },
		{ "1.25 ms", 1250000 }, { "0.000000001", 1 }, { "0.5us", 500 },
		{ "18446744073709551615ns", UINT64_MAX },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_error err = { "" };
		uint64_t v = 42;
		int r = dut_parse_duration(rows[i].in, &v, &err);

		CU_CHECK(r == 0, "\"%s\": ret %d (%s)", rows[i].in, r, err.msg);
		CU_CHECK(r != 0 || v == rows[i].ns, "\"%s\": %" PRIu64 ", want %" PRIu64,
			 rows[i].in, v, rows[i].ns);
	}
}

static void test_durations_reject_bad_input_quoting_it(void)
{
	static const struct bad_row rows[] = {
		{ "", -EINVAL, "duration \"\": empty" },
		{ "500MS", -EINVAL, "unknown unit \"MS\" (expected ns, us" },
		{ "1S", -EINVAL, "unknown unit \"S\"" },
		{ "5 sec", -EINVAL, "unknown unit \"sec\"" },
		{ "1d", -EINVAL, "unknown unit \"d\"" },
		{ "1.5ns", -EINVAL, "\"1.5ns\": not a whole number of nanoseconds (it is 1.5 nanoseconds)" },
		{ "0.0000000001", -EINVAL, "not a whole number" },
		{ "600000000h", -ERANGE, "\"600000000h\": too large" },
		{ "18446744073709551616ns", -ERANGE, "number too large" },
		{ "-1s", -ERANGE, "\"-1s\": must not be negative" },
		{ "1 s ", -EINVAL, "white space" },
		{ "ms", -EINVAL, "\"ms\": not a number" },
		{ "1e3ms", -EINVAL, "unknown unit \"e3ms\"" },
		{ "1:30", -EINVAL, "unknown unit \":30\"" },
	};

	CHECK_BAD_ROWS(rows, dut_parse_duration, uint64_t, "duration");
}

static void test_percents_parse(void)
{
	static const struct {
		const char *in;
		double pct;
	} rows[] = {
		{ "30%", 30 }, { "30", 30 }, { "99.9%", 99.9 }, { "0", 0 }, { "100%", 100 },
		{ "12.5 %", 12.5 }, { "0.01%", 0.01 }, { "100.000", 100 }, { ".5%", 0.5 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_error err = { "" };
		double v = -1;
		int r = dut_parse_percent(rows[i].in, &v, &err);

		CU_CHECK(r == 0, "\"%s\": ret %d (%s)", rows[i].in, r, err.msg);
		CU_CHECK(fabs(v - rows[i].pct) <= 1e-13, "\"%s\": %.15f, want %.15f", rows[i].in,
			 v, rows[i].pct);
	}
}

static void test_percents_reject_bad_input_quoting_it(void)
{
	static const struct bad_row rows[] = {
		{ "", -EINVAL, "percentage \"\": empty" },
		{ "101%", -ERANGE, "\"101%\": more than 100%" },
		{ "100.0001", -ERANGE, "\"100.0001\"" },
		{ "-5%", -ERANGE, "\"-5%\": must not be negative" },
		{ "%", -EINVAL, "\"%\": not a number" },
		{ "30%%", -EINVAL, "unknown unit \"%%\"" },
		{ "30 percent", -EINVAL, "unknown unit \"percent\"" },
		{ "0x1e", -EINVAL, "hexadecimal" },
		{ "inf%", -EINVAL, "\"inf%\"" },
	};

	CHECK_BAD_ROWS(rows, dut_parse_percent, double, "percentage");
}

static void test_error_pointer_may_be_null(void)
{
	uint64_t v = 42;
	double d = 42;

	CU_ASSERT_EQUAL(dut_parse_size("4kx", &v, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dut_parse_size("-1", &v, NULL), -ERANGE);
	CU_ASSERT_EQUAL(dut_parse_rate("1MB", &d, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dut_parse_duration("1x", &v, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dut_parse_percent("200", &d, NULL), -ERANGE);
	CU_ASSERT(v == 42 && d == 42);
	CU_ASSERT_EQUAL(dut_parse_size("4k", &v, NULL), 0);
	CU_ASSERT_EQUAL(v, 4096);
}

static void test_long_input_is_quoted_truncated(void)
{
	char in[400], msg_part[16];
	struct dut_error err = { "" };
	uint64_t v;

	memset(in, '7', sizeof(in) - 2);
	in[sizeof(in) - 2] = 'x';
	in[sizeof(in) - 1] = '\0';
	CU_ASSERT_EQUAL(dut_parse_size(in, &v, &err), -EINVAL);
	CU_ASSERT(strstr(err.msg, "...") != NULL);
	CU_ASSERT(strstr(err.msg, "unknown unit \"x\"") != NULL);
	snprintf(msg_part, sizeof(msg_part), "size \"7777777");
	CU_ASSERT(strncmp(err.msg, msg_part, strlen(msg_part)) == 0);
	CU_ASSERT(strlen(err.msg) < 300);
}

static void test_format_exact_strings(void)
{
	static const struct {
		char *(*fmt)(uint64_t, char *, size_t);
		uint64_t v;
		const char *want;
	} rows[] = {
		{ dut_format_size, 0, "0 B" }, { dut_format_size, 1, "1 B" },
		{ dut_format_size, 1023, "1023 B" }, { dut_format_size, 1024, "1 KiB" },
		{ dut_format_size, 1536, "1.50 KiB" }, { dut_format_size, 4096, "4 KiB" },
		{ dut_format_size, 1000000, "976.56 KiB" }, { dut_format_size, MiB - 1, "1.00 MiB" },
		{ dut_format_size, 1610612736, "1.50 GiB" }, { dut_format_size, 8 * GiB, "8 GiB" },
		{ dut_format_size, 3 * TiB, "3 TiB" },
		/* rounded down where rounding up would not parse back (> UINT64_MAX) */
		{ dut_format_size, UINT64_MAX, "16383.99 PiB" },
		{ dut_format_duration, UINT64_MAX, "5124095.57 h" },
		{ dut_format_size_si, 0, "0 B" }, { dut_format_size_si, 999, "999 B" },
		{ dut_format_size_si, 1000, "1 kB" }, { dut_format_size_si, 4096, "4.10 kB" },
		{ dut_format_size_si, 200000000, "200 MB" }, { dut_format_size_si, 1500000000, "1.50 GB" },
		{ dut_format_size_si, 999999, "1.00 MB" }, { dut_format_size_si, 1234567, "1.23 MB" },
		{ dut_format_size_si, UINT64_MAX, "18446.74 PB" },
		{ dut_format_duration, 0, "0 ns" }, { dut_format_duration, 999, "999 ns" },
		{ dut_format_duration, 1000, "1 us" }, { dut_format_duration, 1250, "1.25 us" },
		{ dut_format_duration, 1250000, "1.25 ms" }, { dut_format_duration, 999999, "1.00 ms" },
		{ dut_format_duration, 1500000000, "1.50 s" }, { dut_format_duration, 30000000000, "30 s" },
		{ dut_format_duration, 59999999999, "1.00 m" }, { dut_format_duration, 90000000000, "1.50 m" },
		{ dut_format_duration, 3600000000000, "1 h" }, { dut_format_duration, 5400000000000, "1.50 h" },
	};
	static const struct {
		char *(*fmt)(double, char *, size_t);
		double v;
		const char *want;
	} drows[] = {
		{ dut_format_rate, 200e6, "200.0 MB/s" }, { dut_format_rate, 0, "0.0 B/s" },
		{ dut_format_rate, 512, "512.0 B/s" }, { dut_format_rate, 999.96, "1.0 kB/s" },
		{ dut_format_rate, 1.5e9, "1.5 GB/s" }, { dut_format_rate, 3.5e12, "3.5 TB/s" },
		{ dut_format_rate, -2e6, "-2.0 MB/s" }, { dut_format_rate, NAN, "nan B/s" },
		{ dut_format_count, 26600, "26.6k" }, { dut_format_count, 1234567, "1.23M" },
		{ dut_format_count, 0, "0" }, { dut_format_count, 999, "999" },
		{ dut_format_count, 999.7, "1k" }, { dut_format_count, 1000, "1k" },
		{ dut_format_count, 12.5, "12.5" }, { dut_format_count, 100000, "100k" },
		{ dut_format_count, 2.5e9, "2.5G" }, { dut_format_count, -1500, "-1.5k" },
		{ dut_format_count, 0.001, "0" }, { dut_format_count, 3.14159, "3.14" },
	};
	char buf[DUT_FMT_LEN];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		char *r = rows[i].fmt(rows[i].v, buf, sizeof(buf));

		CU_CHECK(r == buf && strcmp(buf, rows[i].want) == 0,
			 "row %zu (%" PRIu64 "): \"%s\", want \"%s\"", i, rows[i].v, buf, rows[i].want);
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(drows); i++) {
		char *r = drows[i].fmt(drows[i].v, buf, sizeof(buf));

		CU_CHECK(r == buf && strcmp(buf, drows[i].want) == 0,
			 "drow %zu (%g): \"%s\", want \"%s\"", i, drows[i].v, buf, drows[i].want);
	}
}

static void test_format_truncates_and_terminates(void)
{
	char buf[8];

	memset(buf, 'z', sizeof(buf));
	dut_format_size(1536, buf, 4);
	CU_ASSERT_STRING_EQUAL(buf, "1.5");
	CU_ASSERT_EQUAL(buf[4], 'z');
	dut_format_rate(200e6, buf, 1);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT_PTR_NULL(dut_format_duration(5, NULL, 0));
}

/* Values to round-trip: around every unit boundary, plus a multiplicative walk. */
static size_t round_trip_values(uint64_t *v, size_t max)
{
	static const uint64_t bases[] = { 1, 1000, 1024, 60000000000, 3600000000000 };
	size_t n = 0;

	for (size_t b = 0; b < DUT_ARRAY_SIZE(bases); b++)
		for (uint64_t m = bases[b]; m && m <= UINT64_MAX / 1024 && n + 3 <= max; m *= 1024) {
			v[n++] = m - 1;
			v[n++] = m;
			v[n++] = m + m / 3;
		}
	for (double x = 1; x < 1.8e19 && n < max; x *= 1.37)
		v[n++] = (uint64_t)x;
	return n;
}

static void test_format_then_parse_round_trips(void)
{
	uint64_t vals[512];
	size_t n = round_trip_values(vals, DUT_ARRAY_SIZE(vals));

	CU_ASSERT(n > 200);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = vals[i], back = 0;
		char buf[DUT_FMT_LEN], rate[DUT_FMT_LEN + 4];
		double d = -1, unit;
		int r;

		/* size: two decimals of the printed unit; exact when printed whole */
		dut_format_size(v, buf, sizeof(buf));
		snprintf(rate, sizeof(rate), "%s/s", buf);
		r = dut_parse_rate(rate, &d, NULL);
		/* (1.001: a value just below a unit may print rounded up in it) */
		unit = v >= 1000 ? pow(1024, floor(log((double)v * 1.001) / log(1024))) : 1;
		CU_CHECK(r == 0 && fabs(d - (double)v) <= 0.005 * unit * 1.0001 + 1e-9,
			 "size %" PRIu64 " -> \"%s\" -> %.1f (ret %d)", v, buf, d, r);
		if (!strchr(buf, '.')) {
			r = dut_parse_size(buf, &back, NULL);
			CU_CHECK(r == 0 && back == v, "size %" PRIu64 " -> \"%s\" -> %" PRIu64,
				 v, buf, back);
		}
		/* duration: every printed form is a whole number of ns */
		dut_format_duration(v, buf, sizeof(buf));
		r = dut_parse_duration(buf, &back, NULL);
		CU_CHECK(r == 0 && fabs((double)back - (double)v) <= 0.005 * (double)v * 1.0001 + 1,
			 "duration %" PRIu64 " -> \"%s\" -> %" PRIu64 " (ret %d)", v, buf, back, r);
		/* rate: one decimal of an SI unit */
		dut_format_rate((double)v, buf, sizeof(buf));
		r = dut_parse_rate(buf, &d, NULL);
		unit = v >= 999 ? pow(1000, floor(log10((double)v * 1.001) / 3)) : 1;
		CU_CHECK(r == 0 && fabs(d - (double)v) <= 0.05 * unit * 1.0001,
			 "rate %" PRIu64 " -> \"%s\" -> %.1f (ret %d)", v, buf, d, r);
	}
}

static const struct cu_test tests[] = {
	{ "sizes_parse_iec_and_si_exactly", test_sizes_parse_iec_and_si_exactly },
	{ "sizes_reject_bad_input_quoting_it", test_sizes_reject_bad_input_quoting_it },
	{ "rates_parse", test_rates_parse },
	{ "rates_reject_bad_input_quoting_it", test_rates_reject_bad_input_quoting_it },
	{ "durations_parse", test_durations_parse },
	{ "durations_reject_bad_input_quoting_it", test_durations_reject_bad_input_quoting_it },
	{ "percents_parse", test_percents_parse },
	{ "percents_reject_bad_input_quoting_it", test_percents_reject_bad_input_quoting_it },
	{ "error_pointer_may_be_null", test_error_pointer_may_be_null },
	{ "long_input_is_quoted_truncated", test_long_input_is_quoted_truncated },
	{ "format_exact_strings", test_format_exact_strings },
	{ "format_truncates_and_terminates", test_format_truncates_and_terminates },
	{ "format_then_parse_round_trips", test_format_then_parse_round_trips },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "units", .tests = tests };
