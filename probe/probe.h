/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe's tests (bench, slc, fill, trim) as ops tables.  main.c parses the
 * options every test shares, checks write safety, opens the target and calls
 * the test's ops; a test measures into its own result struct, which a human
 * and a JSON renderer read.
 */
#ifndef DUTPROBE_PROBE_H
#define DUTPROBE_PROBE_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/result.h"
#include "probe/target.h"

/* Options every test takes (see probe_common_help). */
struct probe_common {
	const char *target;
	const char *json_path;
	uint64_t size_bytes;      /* --size: create/extend a file, or limit the span */
	bool destructive, force, quick;
	bool fixed_files, fixed_bufs, sqpoll;
	uint64_t seed;
	uint64_t stall_ns;        /* --stall-timeout; 0 = wait forever */
};

#define PROBE_STALL_DEFAULT_NS (60ull * 1000000000ull)

struct probe_ctx {
	struct probe_common co;
	struct probe_target target;
	double ceiling_bytes_per_s;       /* interface ceiling, 0 = unknown */
	char ceiling_desc[160];
	const volatile sig_atomic_t *stop;
};

struct probe_test_ops {
	const char *name;
	const char *summary;              /* one line for `dutprobe --help` */
	const char *help;                 /* the test's own options, for `dutprobe NAME --help` */
	const struct option *longopts;    /* the test's options; val >= 256 */
	size_t cfg_size;
	void (*init)(void *cfg);
	int (*parse_opt)(void *cfg, int opt, const char *arg, struct dut_error *err);
	/* After parsing: cross-checks and --quick; -EINVAL is a usage error. */
	int (*finish)(void *cfg, const struct probe_common *co, struct dut_error *err);
	bool (*writes)(const void *cfg);
	/* Checks that need the opened target (block size, span); -EINVAL = usage error. */
	int (*check_target)(const void *cfg, const struct probe_target *t, struct dut_error *err);
	/*
	 * Measure.  On 0, *ret_result is set; it may be partial (interrupted or an
	 * I/O error, which the result records and the renderers show).
	 */
	int (*run)(const void *cfg, struct probe_ctx *ctx, void **ret_result, struct dut_error *err);
	void (*render_human)(const void *result, const struct probe_ctx *ctx, FILE *out);
	int (*render_json)(const void *result, const struct probe_ctx *ctx, struct dut_result *doc);
	/* 0 when the run completed, 1 when interrupted or an I/O failed. */
	int (*exit_status)(const void *result);
	void (*free_result)(void *result);
};

extern const struct probe_test_ops probe_bench_ops;
extern const struct probe_test_ops probe_slc_ops;
extern const struct probe_test_ops probe_fill_ops;
extern const struct probe_test_ops probe_trim_ops;

/* Shared helpers (probe_util.c). */
int probe_parse_size_opt(const char *opt, const char *arg, uint64_t *ret, struct dut_error *err);
/* --bs: a non-zero size up to 64 MiB; a size that is not a multiple of the target's logical block is refused when the target is opened. */
int probe_parse_bs_opt(const char *arg, uint32_t *ret_bytes, struct dut_error *err);
int probe_parse_duration_opt(const char *opt, const char *arg, uint64_t *ret_ns, struct dut_error *err);
int probe_parse_uint_opt(const char *opt, const char *arg, unsigned min, unsigned max, unsigned *ret,
			 struct dut_error *err);
/* Comma list of queue depths "1,8,32". */
int probe_parse_uint_list(const char *opt, const char *arg, unsigned *vals, size_t max, size_t *ret_n,
			  unsigned min, unsigned maxval, struct dut_error *err);
/* Target facts into the result's "target" object (path, kind, size, block size, ceiling). */
int probe_json_target(const struct probe_ctx *ctx, struct dut_result *doc);
/* "(cache, not device)" when bytes_per_s is above the interface ceiling. */
bool probe_above_ceiling(const struct probe_ctx *ctx, double bytes_per_s);
int probe_json_add(json_object *obj, const char *key, json_object *val);
/*
 * What an engine error means: strerror(), except for a stall
 * (ENGINE_ESTALL), which is described from the last stall's record
 * (engine_last_stall(), probe_stall_describe()).  The string lives until
 * the next call in the same thread.
 */
const char *probe_io_strerror(int err);
/*
 * "PREFIXI/O error at offset N: ..." when the error names an I/O, else
 * "PREFIXI/O error: ..." (a ring error, a stall with nothing in flight):
 * offset 0 must not read like an I/O stuck at the start of the device.
 */
void probe_print_io_error(FILE *out, const char *prefix, int err, bool at_offset, uint64_t offset);
struct engine_stall;
/*
 * A stall in one line: the row, what dutprobe had in flight (count, the
 * oldest's age and offset, or none) beside the block layer's count for the
 * device, what the cancel did, and whether dutprobe stopped waiting.  Pure.
 */
char *probe_stall_describe(const struct engine_stall *st, char *buf, size_t len);
/*
 * Discard [off, off+len): NVMe deallocate on an NVMe namespace (the identify
 * part's helper), BLKDISCARD on other devices, a punched hole in a file.
 * *ret_method names what was used.
 */
int probe_discard(struct probe_ctx *ctx, uint64_t off, uint64_t len, const char **ret_method);

#endif
