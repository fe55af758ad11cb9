/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sizes, rates, durations and percentages (see lib/units.h for the grammar).
 *
 * Numbers are parsed by hand into an integer part and decimal fraction
 * digits, never with strtod(): strtod accepts hex, exponents, "inf", "nan",
 * leading spaces and a locale-dependent decimal point, all of which we
 * reject, and exact integer arithmetic is what lets "1.5GiB" be exactly
 * 1610612736 bytes and "1.3k" be refused as 1331.2 bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

/* At most this many significant fraction digits: 10^19 < 2^64. */
#define MAX_FRAC_DIGITS 19

typedef unsigned __int128 u128;

/* A decimal number: value = (ipart * 10^ndec + frac) / 10^ndec. */
struct decimal {
	uint64_t ipart;
	uint64_t frac;
	unsigned ndec;
	bool ipart_overflow;
};

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", UINT64_C(1) << 10 }, { "ki", UINT64_C(1) << 10 }, { "kib", UINT64_C(1) << 10 },
	{ "m", UINT64_C(1) << 20 }, { "mi", UINT64_C(1) << 20 }, { "mib", UINT64_C(1) << 20 },
	{ "g", UINT64_C(1) << 30 }, { "gi", UINT64_C(1) << 30 }, { "gib", UINT64_C(1) << 30 },
	{ "t", UINT64_C(1) << 40 }, { "ti", UINT64_C(1) << 40 }, { "tib", UINT64_C(1) << 40 },
	{ "p", UINT64_C(1) << 50 }, { "pi", UINT64_C(1) << 50 }, { "pib", UINT64_C(1) << 50 },
	{ "kb", UINT64_C(1000) },
	{ "mb", UINT64_C(1000000) },
	{ "gb", UINT64_C(1000000000) },
	{ "tb", UINT64_C(1000000000000) },
	{ "pb", UINT64_C(1000000000000000) },
};
#define SIZE_UNITS_HINT "expected B, k, KiB, kB, M, MiB, MB, G, GiB, GB, T, TiB, TB, P, PiB, PB"

static const struct unit duration_units[] = {
	{ "", UINT64_C(1000000000) },
	{ "ns", 1 },
	{ "us", UINT64_C(1000) }, { "\xc2\xb5s", UINT64_C(1000) },   /* µs */
	{ "ms", UINT64_C(1000000) },
	{ "s", UINT64_C(1000000000) },
	{ "m", UINT64_C(60000000000) },
	{ "h", UINT64_C(3600000000000) },
};
#define DURATION_UNITS_HINT "expected ns, us, ms, s, m or h, in lowercase"

static const struct unit percent_units[] = {
	{ "", 1 }, { "%", 1 },
};

struct kind {
	const char *what;                /* "size", ... for messages */
	const struct unit *units;
	size_t nunits;
	bool case_insensitive;
	const char *hint;                /* expected units */
	const char *example;             /* an example of good input */
};

static const struct kind size_kind = {
	"size", size_units, sizeof(size_units) / sizeof(size_units[0]), true,
	SIZE_UNITS_HINT, "expected a size like 4k, 16KiB, 1.5GiB or 200MB",
};
static const struct kind rate_kind = {
	"rate", size_units, sizeof(size_units) / sizeof(size_units[0]), true,
	SIZE_UNITS_HINT " followed by /s", "expected a rate like 200MB/s or 1GiB/s",
};
static const struct kind duration_kind = {
	"duration", duration_units, sizeof(duration_units) / sizeof(duration_units[0]), false,
	DURATION_UNITS_HINT, "expected a duration like 30, 500ms, 1.5s or 2m",
};
static const struct kind percent_kind = {
	"percentage", percent_units, sizeof(percent_units) / sizeof(percent_units[0]), false, "expected %", "expected a percentage like 30% or 99.9",
};

/*
 * Quote untrusted text for a message: printable ASCII as is, other bytes
 * as \xNN, cut with "..." so one message never exceeds dut_error.msg.
 */
static const char *quote(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 8 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o + 12 >= len && i + 1 < n) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

#define QBUF 96

static int fail(struct dut_error *err, int ret, const struct kind *k, const char *s,
		const char *part, size_t partlen, const char *why, const char *hint)
{
	char qs[QBUF], qp[QBUF];

	if (!err)
		return ret;
	quote(s, strlen(s), qs, sizeof(qs));
	if (part)
		dut_error_set(err, "%s \"%s\": %s \"%s\" (%s)", k->what, qs, why,
			      quote(part, partlen, qp, sizeof(qp)), hint);
	else
		dut_error_set(err, "%s \"%s\": %s (%s)", k->what, qs, why, hint);
	return ret;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * number = digits [ "." digits ] | "." digits.  Returns 0 and sets *ret_end
 * past the number, 1 when s does not start with a number (the caller
 * explains), or -EINVAL with err set.  Trailing zeros of the fraction are dropped so "1.50000"
 * needs no more precision than "1.5".
 */
static int parse_decimal(const char *s, const struct kind *k, struct decimal *ret,
			 const char **ret_end, struct dut_error *err)
{
	struct decimal d = { 0 };
	const char *p = s, *fstart, *fend;
	bool any = false;

	for (; is_digit(*p); p++) {
		any = true;
		if (__builtin_mul_overflow(d.ipart, 10, &d.ipart) ||
		    __builtin_add_overflow(d.ipart, (uint64_t)(*p - '0'), &d.ipart))
			d.ipart_overflow = true;
	}
	if (*p == '.') {
		fstart = ++p;
		while (is_digit(*p))
			p++;
		if (p == fstart)
			return fail(err, -EINVAL, k, s, NULL, 0, "no digits after the decimal point",
				    "expected a number like 1.5");
		any = true;
		for (fend = p; fend > fstart && fend[-1] == '0'; fend--)
			;
		if (fend - fstart > MAX_FRAC_DIGITS)
			return fail(err, -EINVAL, k, s, fstart, (size_t)(p - fstart),
				    "too many decimal places in", "expected at most 19 significant digits after the point");
		d.ndec = (unsigned)(fend - fstart);
		for (const char *q = fstart; q < fend; q++)
			d.frac = d.frac * 10 + (uint64_t)(*q - '0');
		if (*p == '.')
			return fail(err, -EINVAL, k, s, NULL, 0, "more than one decimal point",
				    "expected a number like 1.5");
	}
	if (!any)
		return 1;
	*ret = d;
	*ret_end = p;
	return 0;
}

static uint64_t pow10u(unsigned n)
{
	uint64_t r = 1;

	while (n--)
		r *= 10;
	return r;
}

static const struct unit *find_unit(const struct kind *k, const char *u, size_t n)
{
	for (size_t i = 0; i < k->nunits; i++) {
		const char *name = k->units[i].name;

		if (strlen(name) != n)
			continue;
		if (k->case_insensitive ? !strncasecmp(name, u, n) : !strncmp(name, u, n))
			return &k->units[i];
	}
	return NULL;
}

/*
 * The common front end: number, at most one space, unit.  unit_end marks
 * where the unit must end (the rate parser has cut "/s" off already).
 */
static int parse_quantity(const char *s, size_t unit_end, const struct kind *k,
			  struct decimal *ret_d, uint64_t *ret_mult, struct dut_error *err)
{
	const char *p, *u, *end;
	const struct unit *unit;
	struct decimal d;
	int r;

	if (!s)   /* before any arithmetic on s: NULL + 0 is undefined */
		return fail(err, -EINVAL, k, "", NULL, 0, "empty value", k->example);
	end = s + unit_end;
	if (!*s)
		return fail(err, -EINVAL, k, s, NULL, 0, "empty value", k->example);
	if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[strlen(s) - 1]))
		return fail(err, -EINVAL, k, s, NULL, 0,
			    "leading or trailing white space", k->example);
	if (s[0] == '-')
		return fail(err, -ERANGE, k, s, NULL, 0, "must not be negative", k->example);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return fail(err, -EINVAL, k, s, NULL, 0, "hexadecimal is not supported",
			    k->example);
	r = parse_decimal(s, k, &d, &p, err);
	if (r < 0)
		return r;
	if (r > 0)      /* a unit alone ("k"), or words ("inf", "+5") */
		return fail(err, -EINVAL, k, s, NULL, 0, "not a number", k->example);
	u = p;
	if (*u == ' ' && u + 1 < end)
		u++;
	unit = find_unit(k, u, (size_t)(end - u));
	if (!unit)      /* every kind has a "" unit, so there is text here */
		return fail(err, -EINVAL, k, s, u, (size_t)(end - u), "unknown unit",
			    k->hint);
	if (d.ipart_overflow)
		return fail(err, -ERANGE, k, s, NULL, 0, "number too large", k->example);
	*ret_d = d;
	*ret_mult = unit->mult;
	return 0;
}

/* d * mult exactly, as a whole number; -EINVAL if fractional, -ERANGE if > 2^64-1. */
static int scale_exact(const struct decimal *d, uint64_t mult, uint64_t *ret)
{
	uint64_t den = pow10u(d->ndec);
	u128 fpart = (u128)d->frac * mult;   /* < 2^64 * 2^64 */
	u128 total = (u128)d->ipart * mult;

	if (fpart % den)
		return -EINVAL;
	total += fpart / den;
	if (total > UINT64_MAX)
		return -ERANGE;
	*ret = (uint64_t)total;
	return 0;
}

static long double scale_real(const struct decimal *d, uint64_t mult)
{
	return ((long double)d->ipart + (long double)d->frac / pow10u(d->ndec)) * mult;
}

static int parse_whole(const char *s, const struct kind *k, const char *unit_word,
		       uint64_t *ret, struct dut_error *err)
{
	struct decimal d;
	uint64_t mult, v;
	int r;

	r = parse_quantity(s, s ? strlen(s) : 0, k, &d, &mult, err);
	if (r < 0)
		return r;
	r = scale_exact(&d, mult, &v);
	if (r == -EINVAL) {
		char why[64], num[64], hint[96];
		size_t n;

		snprintf(why, sizeof(why), "not a whole number of %s", unit_word);
		/* "1.3k": "it is 1331.2 bytes" (three decimals, zeros dropped) */
		snprintf(num, sizeof(num), "%.3Lf", scale_real(&d, mult));
		for (n = strlen(num); n > 1 && num[n - 1] == '0'; n--)
			num[n - 1] = '\0';
		if (num[n - 1] == '.')
			num[n - 1] = '\0';
		snprintf(hint, sizeof(hint), "it is %s %s", num, unit_word);
		return fail(err, r, k, s, NULL, 0, why, hint);
	}
	if (r == -ERANGE)
		return fail(err, r, k, s, NULL, 0, "too large",
			    k == &size_kind ? "expected at most 16 EiB - 1 byte" : "expected at most ~584 years");
	*ret = v;
	return 0;
}

int dut_parse_size(const char *s, uint64_t *ret_bytes, struct dut_error *err)
{
	return parse_whole(s, &size_kind, "bytes", ret_bytes, err);
}

int dut_parse_duration(const char *s, uint64_t *ret_ns, struct dut_error *err)
{
	return parse_whole(s, &duration_kind, "nanoseconds", ret_ns, err);
}

int dut_parse_rate(const char *s, double *ret_bytes_per_s, struct dut_error *err)
{
	struct decimal d;
	uint64_t mult;
	size_t n = s ? strlen(s) : 0;
	long double v;
	int r;

	/* A leading error (empty, negative, ...) reads better than "missing /s". */
	r = parse_quantity(s, n, &rate_kind, &d, &mult, NULL);
	if (n < 2 || strcmp(s + n - 2, "/s") != 0) {
		if (r == 0)
			return fail(err, -EINVAL, &rate_kind, s, NULL, 0, "missing \"/s\"",
				    rate_kind.example);
		return parse_quantity(s, n, &rate_kind, &d, &mult, err);
	}
	r = parse_quantity(s, n - 2, &rate_kind, &d, &mult, err);
	if (r < 0)
		return r;
	v = scale_real(&d, mult);
	if (v > (long double)UINT64_MAX)
		return fail(err, -ERANGE, &rate_kind, s, NULL, 0, "too large",
			    "expected at most 16 EiB/s");
	*ret_bytes_per_s = (double)v;
	return 0;
}

int dut_parse_percent(const char *s, double *ret_pct, struct dut_error *err)
{
	struct decimal d;
	uint64_t mult;
	long double v;
	int r;

	r = parse_quantity(s, s ? strlen(s) : 0, &percent_kind, &d, &mult, err);
	if (r < 0)
		return r;
	v = scale_real(&d, mult);
	if (v > 100)
		return fail(err, -ERANGE, &percent_kind, s, NULL, 0, "more than 100%",
			    "expected 0 to 100");
	*ret_pct = (double)v;
	return 0;
}

/* ---- printing ---- */

/*
 * value/unit with two decimals, or as a whole number when it is one
 * ("4 KiB", "1.50 GiB").  Picks the largest unit <= value, and moves up one
 * when rounding would print "1024.00 KiB".
 */
static char *format_scaled(uint64_t v, const struct unit *units, size_t n, uint64_t step,
			   char *buf, size_t len)
{
	size_t i = 0;
	long double x;

	if (!buf || len == 0)
		return buf;
	while (i + 1 < n && v >= units[i + 1].mult)
		i++;
	x = (long double)v / units[i].mult;
	if (i + 1 < n && v % units[i].mult && roundl(x * 100) >= step * 100) {
		i++;
		x = (long double)v / units[i].mult;
	}
	if (v % units[i].mult == 0) {
		snprintf(buf, len, "%" PRIu64 " %s", v / units[i].mult, units[i].name);
		return buf;
	}
	/* near 2^64, rounding up would print a value that no longer parses */
	x = roundl(x * 100) / 100;
	if (x * units[i].mult > (long double)UINT64_MAX)
		x = floorl((long double)v / units[i].mult * 100) / 100;
	snprintf(buf, len, "%.2Lf %s", x, units[i].name);
	return buf;
}

static const struct unit iec_print[] = {
	{ "B", 1 }, { "KiB", UINT64_C(1) << 10 }, { "MiB", UINT64_C(1) << 20 },
	{ "GiB", UINT64_C(1) << 30 }, { "TiB", UINT64_C(1) << 40 }, { "PiB", UINT64_C(1) << 50 },
};
static const struct unit si_print[] = {
	{ "B", 1 }, { "kB", UINT64_C(1000) }, { "MB", UINT64_C(1000000) },
	{ "GB", UINT64_C(1000000000) }, { "TB", UINT64_C(1000000000000) },
	{ "PB", UINT64_C(1000000000000000) },
};
static const struct unit duration_print[] = {
	{ "ns", 1 }, { "us", UINT64_C(1000) }, { "ms", UINT64_C(1000000) },
	{ "s", UINT64_C(1000000000) }, { "m", UINT64_C(60000000000) },
	{ "h", UINT64_C(3600000000000) },
};

char *dut_format_size(uint64_t bytes, char *buf, size_t len)
{
	return format_scaled(bytes, iec_print, 6, 1024, buf, len);
}

char *dut_format_size_si(uint64_t bytes, char *buf, size_t len)
{
	return format_scaled(bytes, si_print, 6, 1000, buf, len);
}

char *dut_format_duration(uint64_t ns, char *buf, size_t len)
{
	size_t i = 0;
	long double x;

	if (!buf || len == 0)
		return buf;
	/* steps are 1000 up to s, then 60, 60: find the unit by threshold */
	while (i + 1 < 6 && ns >= duration_print[i + 1].mult)
		i++;
	x = (long double)ns / duration_print[i].mult;
	if (i + 1 < 6 && ns % duration_print[i].mult &&
	    roundl(x * 100) / 100 * duration_print[i].mult >= duration_print[i + 1].mult)
		i++;
	return format_scaled(ns, duration_print + i, 1, 1, buf, len);
}

/*
 * Scale a double by powers of 1000 so it prints with `sig` significant
 * digits and below 1000 after rounding.  Returns the suffix index.
 */
static unsigned scale1000(double *x, unsigned max_idx, int *ret_decimals, int sig)
{
	unsigned i = 0;
	int dec;

	for (;;) {
		double a = fabs(*x);

		dec = a >= 100 ? sig - 3 : a >= 10 ? sig - 2 : sig - 1;
		if (dec < 0)
			dec = 0;
		/* would it print as 1000 or more after rounding? then scale */
		if (i < max_idx && round(a * pow(10, dec)) >= 1000 * pow(10, dec)) {
			*x /= 1000;
			i++;
			continue;
		}
		break;
	}
	*ret_decimals = dec;
	return i;
}

char *dut_format_rate(double bytes_per_s, char *buf, size_t len)
{
	static const char *const names[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
	double x = bytes_per_s;
	unsigned i = 0;

	if (!buf || len == 0)
		return buf;
	if (!isfinite(x)) {
		snprintf(buf, len, "%s B/s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
		return buf;
	}
	while (i < 5 && fabs(x) >= 1000) {
		x /= 1000;
		i++;
	}
	if (i < 5 && fabs(round(x * 10)) >= 10000) {
		x /= 1000;
		i++;
	}
	snprintf(buf, len, "%.1f %s", x, names[i]);
	return buf;
}

char *dut_format_count(double n, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T", "P", "E" };
	double x = n;
	int dec;
	unsigned i;
	char *dot, *e;

	if (!buf || len == 0)
		return buf;
	if (!isfinite(x)) {
		snprintf(buf, len, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
		return buf;
	}
	i = scale1000(&x, 6, &dec, 3);
	snprintf(buf, len, "%.*f", dec, x);
	/* "26.60" -> "26.6", "2.00" -> "2" */
	dot = strchr(buf, '.');
	if (dot) {
		for (e = buf + strlen(buf); e > dot + 1 && e[-1] == '0'; e--)
			;
		if (e == dot + 1)
			e = dot;
		*e = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", suffix[i]);
	return buf;
}

int dut_pg_memory_parse(const char *value, uint64_t block_bytes, uint64_t *ret_bytes)
{
	const struct { const char *unit; uint64_t mult; } units[] = {
		{ "B", 1 }, { "kB", 1ull << 10 }, { "MB", 1ull << 20 }, { "GB", 1ull << 30 },
		{ "TB", 1ull << 40 }, { "", block_bytes ? block_bytes : 8192 },
	};
	char buf[64], *p = buf, *end;
	size_t n = strlen(value);
	unsigned long long v;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, value, n + 1);
	if (n >= 2 && buf[0] == '\'' && buf[n - 1] == '\'') {
		buf[n - 1] = '\0';
		p++;
	}
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ul = strlen(units[i].unit);

		if (strncmp(end, units[i].unit, ul) != 0 || strspn(end + ul, " ") != strlen(end + ul))
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -EINVAL;
		*ret_bytes = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}
