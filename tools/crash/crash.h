/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab crash: the campaign's orchestration (crash.c: CLI and template; crash_state.c: one state). */
#ifndef DUTLAB_CRASH_H
#define DUTLAB_CRASH_H

#include <limits.h>
#include <stdbool.h>

#include "tools/crash/crash_result.h"

struct crash_ctx {
	const struct crash_campaign *c;
	char dutfs[PATH_MAX], pgload[PATH_MAX], amcheck[PATH_MAX], psql[PATH_MAX];
	char bindir[PATH_MAX - 16];  /* the PostgreSQL the clusters run (--bindir, else the newest) */
	char work[PATH_MAX];        /* everything of the campaign */
	char scratch[PATH_MAX];     /* the template clusters and the state's copy (pick_scratch) */
	char template_dir[PATH_MAX + 16], backing[PATH_MAX + 16], mnt[PATH_MAX + 16];
	char empty_dir[PATH_MAX + 16];  /* the template before its load: the init point's states */
	bool want_empty;                /* the campaign has init-point states */
	char pgdata[PATH_MAX + 32], relmap[PATH_MAX + 32];
	bool keep;                  /* keep each state's files */
	bool verbose;
	bool mounted;               /* protected: only the main thread */
	uint32_t page_bytes;        /* the server's block size, once the template is made */
};

extern const char dutlab_crash_usage[];
int dutlab_cmd_crash(int argc, char **argv);

/* Make the template cluster (pgload cluster init, init -s 1, ledger init, amcheck installed). */
int crash_make_template(struct crash_ctx *x, const char *const *sets, unsigned nsets, char *why, size_t why_len);
/* Run one state; o says what happened (o->harness_error when it could not be run). */
void crash_run_state(struct crash_ctx *x, const struct crash_state *st, struct crash_outcome *o);
/* Unmount whatever the campaign left mounted (the interrupted path). */
void crash_teardown(struct crash_ctx *x);

#endif
