/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the orchestrator's halves of the step kinds
 * (tools/kinds/<kind>.c): parameter accessors, the estimate units, and the
 * pieces of command lines more than one kind uses (step_util.c).  Nothing
 * here knows a kind by name.
 */
#ifndef DUTLAB_RUN_STEPS_STEPS_PRIV_H
#define DUTLAB_RUN_STEPS_STEPS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "tools/run/experiment.h"
#include "tools/run/steps/step_argv.h"

#define NS_PER_S 1000000000ull
#define KiB 1024.0
#define MiB (1024.0 * 1024)
#define GiB (1024.0 * 1024 * 1024)
#define TiB (GiB * 1024)
#define PiB (TiB * 1024)

#define STEP_PARAMS(a) .params = a, .nparams = sizeof(a) / sizeof(a[0])

/* Write rate assumed for probe steps that write a span (slc, fill): the
 * slow end of what we test (USB/SATA SSD past its cache, a loop image). */
#define EXP_PROBE_WRITE_BPS (100.0 * MiB)
/* Size assumed for a whole device whose size is unknown until run time. */
#define EXP_UNKNOWN_DEVICE_BYTES (64ull << 30)

/* The file a probe kind writes on the target's filesystem (not with raw = yes). */
#define PROBE_FILE_PARAMS                                                                        \
	{ .key = "file", .kind = DUT_P_STRING, .def = "dutprobe.dat",                                \
	  .help = "file on the target's filesystem the probe writes (not with raw = yes)" },         \
	{ .key = "size", .kind = DUT_P_SIZE, .flag = "--size", .min = MiB, .max = PiB,                \
	  .help = "size of that file (required unless raw = yes)" }

/* A parameter's number (0 when unset) and whether it has a value. */
uint64_t step_pu(const struct dut_step *s, const char *key);
bool step_pset(const struct dut_step *s, const char *key);
uint64_t step_secs(double s);

/* ---- estimates shared by kinds ---- */
uint64_t step_no_space(const struct dut_step *s, uint64_t db_bytes);
/* The bytes a probe kind writes: span, size, or the target's. */
uint64_t step_probe_bytes(const struct dut_step *s, uint64_t target_bytes);
/* The probe file's size (0 with raw = yes). */
uint64_t step_probe_space(const struct dut_step *s, uint64_t db_bytes);

/* ---- command lines shared by kinds ---- */
/* Every parameter of s with a flag and a value, except the keys in skip (NULL-terminated). */
int step_add_params(struct run_argv *a, const struct dut_step *s, const char *const *skip);
/* pgload's --json, --dutfs-control /dev/null (marks_off) and --relmap. */
int step_pgload_tail(struct run_argv *a, const struct run_step_ctx *c, bool marks_off);
/* dutprobe COMMAND [params] [--destructive] [--json F] TARGET: the probe kinds. */
int step_build_probe(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		     struct run_argv *pre, struct dut_error *err);

#endif
