/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash: what each state showed, the campaign's verdict, and its two
 * renderers (a human table and the JSON result document), both from
 * struct crash_report.  Pure.
 */
#ifndef DUTLAB_CRASH_RESULT_H
#define DUTLAB_CRASH_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/result.h"
#include "tools/crash/crash_atomic.h"
#include "tools/crash/crash_plan.h"

enum crash_phase {
	CRASH_PH_COPY = 0,   /* fresh copy of the template cluster */
	CRASH_PH_MOUNT,      /* dutfs with the state's rules */
	CRASH_PH_START,      /* PostgreSQL start before the workload */
	CRASH_PH_WORKLOAD,   /* ledger run until the crash and the clients' end */
	CRASH_PH_CRASH,      /* crash (if the fault did not), kill the server, recover */
	CRASH_PH_RECOVERY,   /* the restart: crash recovery */
	CRASH_PH_LEDGER,     /* pgload ledger check */
	CRASH_PH_AMCHECK,    /* pg_amcheck --heapallindexed */
	CRASH_PH_TEARDOWN,   /* stop, unmount, remove */
	CRASH_PHASES
};

struct crash_outcome {
	struct crash_state st;
	bool harness_error;           /* the state could not be run: not a finding */
	char error[300];
	bool fault_fired;             /* the crash came from the fault (else the timer) */
	bool checkpoint_fired;        /* ... from the checkpoint point (its log line) */
	bool crashed_at_start;        /* the fault fired while the server started */
	bool panic_seen;              /* the server log has a PANIC before the restart */
	bool in_checkpoint;           /* the crash came between a checkpoint's start and its end */
	bool started;                 /* the server came back */
	bool pid_file_empty;          /* postmaster.pid lost its content (removed to go on) */
	char start_failure[300];
	uint64_t acked, in_flight, lost, half, unexpected;
	bool balances_ok;
	char ledger_detail[300];      /* which balance, or the read error */
	bool load;                    /* the init point: the load's check instead of the ledger's */
	unsigned load_findings;       /* crash_load_judge's violations (or 1: the check could not run) */
	unsigned load_acked;          /* statements the ack log holds */
	char load_last_ack[48];       /* the last of them: where in the load the crash came */
	char load_detail[300];
	int amcheck_rc;               /* pg_amcheck's exit status; -1: not run */
	unsigned amcheck_lines;       /* lines of complaints */
	char amcheck_first[300];
	uint64_t phase_ms[CRASH_PHASES];
	bool damaged;                 /* crash_outcome_judge */
};

/*
 * Server log text up to the crash: did the crash come during a checkpoint
 * (the last "checkpoint starting:" or "restartpoint starting:" has no
 * "complete:" after it)?  log_checkpoints is on by default from PostgreSQL 15
 * and the campaign's clusters set it.
 */
bool crash_log_in_checkpoint(const char *text, size_t len);
/* damaged: no start, a lost/half/unexpected transaction, balances off, amcheck output. */
void crash_outcome_judge(struct crash_outcome *o);
/* One line: what damage (or "clean"). */
void crash_outcome_summary(const struct crash_outcome *o, char *buf, size_t len);

struct crash_report {
	struct crash_campaign c;
	const char *experiment;       /* the INI file, or NULL */
	int only_state;               /* --state I; -1: all */
	struct crash_outcome *o;
	size_t n;
	uint64_t template_ms;         /* making the template cluster, once */
	uint64_t elapsed_ms;          /* the whole campaign, template included */
	struct crash_atomic atomic;   /* --identify; have false: not given */
	const char *identify;         /* its file, for the command that re-runs a state; NULL */
	const char *bindir;           /* --bindir given (the PostgreSQL of the clusters); NULL */
	const char *pg_bindir;        /* the bindir the campaign ran (given or the newest installed) */
	const char *page_source;      /* where c.page_bytes came from (pg_controldata, the build's record) */
	const char *const *sets;      /* --set NAME=VALUE of the campaign's clusters */
	unsigned nsets;
};

struct crash_verdict {
	size_t regular, regular_damaged, harness_errors;
	size_t fpw_states, fpw_detected, fsync_states, fsync_detected;
	long first_failing;           /* index into o[], -1: none */
	bool pass;
	char why[300];
};

void crash_report_verdict(const struct crash_report *r, struct crash_verdict *ret);
/* The command that runs state o[i] alone. */
void crash_repro_command(const struct crash_report *r, unsigned state, char *buf, size_t len);
void crash_report_print(const struct crash_report *r, FILE *out);
struct json_object *crash_report_json(const struct crash_report *r);
/* The campaign as a dutlab-result document (crash_doc.c; docs/result-schema.md
 * "dutlab crash"): config (workload "crash"), phases "template" and
 * "campaign" (metrics: the counts; extra: states, verdict).  0 or -ENOMEM. */
int crash_report_result(const struct crash_report *r, const char *version, struct dut_result **ret);
const char *crash_phase_name(enum crash_phase p);

#endif
