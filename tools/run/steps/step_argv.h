/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command lines of steps (pure): the string vector a step kind's argv op
 * fills, and what that op may know about the step's setting.  Part of the
 * experiment library (libdutlab_run) so that a step kind's file owns its
 * command line without the kinds depending on the runner; runner.h
 * includes this header.
 */
#ifndef DUTLAB_RUN_STEPS_STEP_ARGV_H
#define DUTLAB_RUN_STEPS_STEP_ARGV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dut_config;

struct run_argv {
	char **v;               /* NULL-terminated */
	size_t n, cap;
};

int run_argv_add(struct run_argv *a, const char *s);
int run_argv_addf(struct run_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the vector over (NULL-terminated) and reset a. */
char **run_argv_take(struct run_argv *a);
void run_argv_free(struct run_argv *a);
void run_strv_free(char **v);
char **run_strv_copy(char *const *v);

/* What a step's command line needs to know about its setting. */
struct run_step_ctx {
	const char *pgload, *dutprobe;  /* program paths */
	const struct dut_config *cfg;
	const char *pgdata;             /* the primary's data directory (through dutfs) */
	const char *conninfo;           /* libpq connection string of the primary */
	const char *probe_target;       /* probe steps: the file or device to probe */
	const char *json_path;          /* --json */
	const char *relmap_path;        /* --relmap, or NULL */
	const char *dump_path;          /* restore: the dump file */
	const char *pg_bindir;          /* restore: the configuration's PostgreSQL (--bindir), or NULL */
	bool dump_is_self;              /* restore: make it first (pgload restore dump) */
	const char *dutlab;             /* crash: this program (dutlab crash) */
	const char *identify_json;      /* crash: the identify step's document (--identify), or NULL */
};

/* Format a duration parameter for a tool's lib/units parser: "30" (whole
 * seconds) or "1500ms". */
void run_fmt_duration_arg(uint64_t ns, char *buf, size_t len);

#endif
