/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sizes, rates, durations and percentages: parsing and printing.
 *
 * Size suffixes (case-insensitive except where noted; a trailing "B" is
 * optional on the binary forms):
 *   IEC, powers of 1024:  k K KiB  m M MiB  g G GiB  t T TiB  p P PiB
 *                         (so "4k" = 4096 and "8G" = 8 GiB, as dd and fio read them)
 *   SI, powers of 1000:   kB KB  MB  GB  TB  PB   (the two-letter "B" forms)
 *   bare number:          bytes;  "b"/"B" alone: bytes
 * Fractions are allowed ("1.5GiB"); the result must be a whole number of
 * bytes once multiplied, else the value is rejected ("1.3k" is 1331.2 B).
 *
 * Rates are a size followed by "/s" ("200MB/s" = 200e6 B/s, "1GiB/s"); the
 * "/s" is required and the rate need not be a whole number of bytes.
 * Durations (units lowercase): ns us (or µs) ms s m h, bare number = seconds
 * ("30", "500ms", "1.5s"); the result must be a whole number of ns.
 * Percentages: "30%" or a bare fraction-of-100 number ("30") -> 30.0;
 * 0 to 100 inclusive, more is -ERANGE.
 *
 * Number syntax, for all four: decimal digits with at most one "." ("4",
 * "1.5", ".5"; at most 19 significant digits after the point), then at most
 * one space (' ') before the unit ("16 KiB", "500 ms", "30 %").  Rejected:
 * empty text, leading or trailing white space, a sign ("-1" is -ERANGE,
 * "+1" -EINVAL), hexadecimal ("0x10"), exponents ("1e9"), "inf"/"nan", a
 * unit without a number ("k"), and anything after the unit ("4kx", "4 k b").
 *
 * Printing: sizes in IEC units ("1.50 GiB"), rates in SI units as storage
 * vendors quote them ("200.0 MB/s"), durations in the largest unit that
 * keeps the value >= 1 ("1.25 ms"; units ns us ms s m h).  Sizes and
 * durations have two decimals, or none when the value is an exact multiple
 * of the unit ("4 KiB", "500 ms"); every printed size, duration and rate
 * parses back (a printed size such as "1.33 KiB" may name a fraction of a
 * byte, which dut_parse_size rejects, but dut_parse_rate reads).
 *
 * Errors: -EINVAL for malformed text, -ERANGE for overflow or a negative
 * value; err (may be NULL) quotes the offending text, e.g.
 *   size "12 parsecs": unknown unit "parsecs" (expected k, KiB, MB, ...)
 */
#ifndef DUT_UNITS_H
#define DUT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

int dut_parse_size(const char *s, uint64_t *ret_bytes, struct dut_error *err);
int dut_parse_rate(const char *s, double *ret_bytes_per_s, struct dut_error *err);
int dut_parse_duration(const char *s, uint64_t *ret_ns, struct dut_error *err);
int dut_parse_percent(const char *s, double *ret_pct, struct dut_error *err);

/*
 * A PostgreSQL memory setting's value (shared_buffers): a whole number with
 * an optional unit B, kB, MB, GB or TB (PostgreSQL's spelling, powers of
 * 1024), a bare number counting blocks of block_bytes (the server's
 * BLCKSZ: 8192 in Debian's builds); quotes around it are allowed.
 * 0 or -EINVAL.
 */
int dut_pg_memory_parse(const char *value, uint64_t block_bytes, uint64_t *ret_bytes);

/* Each writes into buf (always NUL-terminated) and returns buf. */
char *dut_format_size(uint64_t bytes, char *buf, size_t len);
char *dut_format_size_si(uint64_t bytes, char *buf, size_t len);
char *dut_format_rate(double bytes_per_s, char *buf, size_t len);
char *dut_format_duration(uint64_t ns, char *buf, size_t len);
/* Plain count with SI suffix: 26600 -> "26.6k", 1234567 -> "1.23M". */
char *dut_format_count(double n, char *buf, size_t len);

#define DUT_FMT_LEN 32

#endif
