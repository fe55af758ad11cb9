/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result documents: one versioned JSON schema (json-c) for every tool's
 * results.  Measuring code fills a struct dut_result; the human renderer and
 * the JSON writer both read it; reports and comparisons read documents back
 * with dut_result_read_file().  Schema: docs/result-schema.md.
 *
 *   {
 *     "schema": "dutlab-result", "schema_version": 1,
 *     "tool":   { "name": "dutprobe", "version": "0.1.0", "command": "..." },
 *     "created": "2026-11-30T05:40:00Z",
 *     "host":   { "hostname", "kernel", "cpu_model", "cpus", "mem_bytes" },
 *     "target": { ... free-form, tool-defined ... },
 *     "config": { ... free-form, tool-defined ... },
 *     "phases": [
 *       { "name": "run", "duration_ns": 30000000000,
 *         "metrics":   { "tps": { "value": 1234.5, "unit": "tx/s" } },
 *         "latency":   { "txn": { "unit": "ns", "count", "min", "max", "mean",
 *                                 "stddev", "p50", "p90", "p99", "p99.9", "p99.99" } },
 *         "series":    { "per_second": { "columns": ["t_s", "tps"], "units": ["s", "tx/s"],
 *                                        "rows": [[1, 1200.0], ...] } },
 *         "extra":     { ... free-form ... } } ]
 *   }
 *
 * All functions return 0 or -errno (-ENOMEM, -EINVAL, -ENOENT for a missing
 * name, -EIO/-errno for file errors).  Getters hand out borrowed pointers
 * that live as long as the result.
 */
#ifndef DUT_RESULT_H
#define DUT_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/hist.h"

#define DUT_RESULT_SCHEMA "dutlab-result"
#define DUT_RESULT_SCHEMA_VERSION 1
/* Nesting a reader accepts: EXPLAIN (FORMAT JSON) plans inside documents go deep. */
#define DUT_RESULT_MAX_DEPTH 1024

struct dut_result;
struct dut_result_phase;
struct dut_series;

struct dut_host {
	char hostname[256];
	char kernel[256];      /* uname -sr plus -v */
	char cpu_model[256];
	unsigned cpus;         /* online CPUs */
	uint64_t mem_bytes;    /* MemTotal */
};

/*
 * Fill from uname(2), /proc/cpuinfo and /proc/meminfo (host_linux.c).
 * DUT_PROC_ROOT, when set, replaces "/proc" (a test seam).
 */
int dut_host_probe(struct dut_host *ret);
/* The current UTC time as "2026-11-30T05:40:00Z" (host_linux.c); -ERANGE if len < 21. */
int dut_host_utc_now(char *buf, size_t len);

/* --- writing --- */
struct dut_result *dut_result_new(const char *tool, const char *version);
void dut_result_free(struct dut_result *r);
int dut_result_set_command(struct dut_result *r, int argc, char *const *argv);
int dut_result_set_host(struct dut_result *r, const struct dut_host *host);
/* Borrowed, free-form objects the tool fills with json-c calls. */
json_object *dut_result_target(struct dut_result *r);
json_object *dut_result_config(struct dut_result *r);

struct dut_result_phase *dut_result_add_phase(struct dut_result *r, const char *name);
int dut_phase_set_duration(struct dut_result_phase *ph, uint64_t duration_ns);
int dut_phase_set_metric(struct dut_result_phase *ph, const char *name, double value,
			 const char *unit);
int dut_phase_set_latency(struct dut_result_phase *ph, const char *name,
			  const struct dut_hist_summary *s);
/* A table of doubles with named columns; rows are appended whole. */
struct dut_series *dut_phase_add_series(struct dut_result_phase *ph, const char *name,
					const char *const *columns, const char *const *units,
					size_t ncols);
/* Values must be finite: NaN and infinity are not JSON, they give -EINVAL. */
int dut_series_append(struct dut_series *s, const double *row);
json_object *dut_phase_extra(struct dut_result_phase *ph);

/*
 * Serialise (pretty, 2-space).  *ret is malloc'ed.  -EINVAL when a
 * free-form member holds a NaN or infinite double (the setters refuse them).
 */
int dut_result_to_string(const struct dut_result *r, char **ret);
/* Write atomically (temp file + rename); "-" writes to stdout. */
int dut_result_write_file(const struct dut_result *r, const char *path);

/* --- reading --- */
/*
 * Parse and validate a document: the schema name, a schema_version this code
 * reads, and the type of every structural member.  On error err says where
 * ("phases[1].metrics.tps.value: expected a number, found a string").
 */
int dut_result_parse(const char *text, size_t len, struct dut_result **ret,
		     struct dut_error *err);
int dut_result_read_file(const char *path, struct dut_result **ret, struct dut_error *err);

const char *dut_result_tool_name(const struct dut_result *r);
const char *dut_result_tool_version(const struct dut_result *r);
int dut_result_get_host(const struct dut_result *r, struct dut_host *ret);
size_t dut_result_phase_count(const struct dut_result *r);
struct dut_result_phase *dut_result_phase_at(const struct dut_result *r, size_t i);
struct dut_result_phase *dut_result_find_phase(const struct dut_result *r, const char *name);
/* The whole document, borrowed (for tool-specific members). */
json_object *dut_result_json(const struct dut_result *r);

const char *dut_phase_name(const struct dut_result_phase *ph);
int dut_phase_get_duration(const struct dut_result_phase *ph, uint64_t *ret_ns);
int dut_phase_get_metric(const struct dut_result_phase *ph, const char *name,
			 double *ret_value, const char **ret_unit);
int dut_phase_get_latency(const struct dut_result_phase *ph, const char *name,
			  struct dut_hist_summary *ret);
struct dut_series *dut_phase_get_series(const struct dut_result_phase *ph, const char *name);
size_t dut_series_ncols(const struct dut_series *s);
size_t dut_series_nrows(const struct dut_series *s);
/* Column index by name, or -ENOENT. */
int dut_series_col(const struct dut_series *s, const char *column);
/* NaN when row or col is out of range. */
double dut_series_get(const struct dut_series *s, size_t row, size_t col);

#endif
