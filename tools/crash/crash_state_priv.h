/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash, inside one state: what crash_state.c (the state's life) and
 * crash_check.c (the checks of the recovered server) share.
 */
#ifndef DUTLAB_CRASH_STATE_PRIV_H
#define DUTLAB_CRASH_STATE_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/crash/crash.h"

#define CRASH_MS 1000000ull

struct st_run {
	struct crash_ctx *x;
	char dir[PATH_MAX + 32], log[PATH_MAX + 64], ledger[PATH_MAX + 64], server_log[PATH_MAX + 64];
	/* rules: what the state's dutfs runs (the fault-free rules after the crash);
	 * state_rules: the state's own rules, kept with its files */
	char rules[PATH_MAX + 64], state_rules[PATH_MAX + 64];
	pid_t postmaster;
	uint64_t log_offset;
	/* the running server's socket directory and port, from its start's output */
	char host[PATH_MAX], port[16];
	bool have_socket;
};

/* snprintf for messages, which may be cut short */
void crash_msg(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Run a command to completion, output into the state's log; its exit status or -errno. */
int crash_st_cmd(struct st_run *s, char *const argv[], unsigned timeout_s);
/* host= and port= of a libpq conninfo into host and port; 0 or -EINVAL (neither there). */
int crash_conninfo_socket(const char *ci, char *host, size_t host_len, char *port, size_t port_len);
/* psql -At -c SQL on the running server into out (a file); its exit status or -errno. */
int crash_st_psql(struct st_run *s, const char *sql, const char *out, unsigned timeout_s);
/* pg_amcheck --heapallindexed on database postgres, to completion (o->amcheck_*). */
void crash_st_amcheck(struct st_run *s, struct crash_outcome *o, bool install);
/*
 * The checks of a recovered, running server: pg_amcheck in the background
 * while the ledger check (or the init point's load check) runs, both
 * read-only; then pg_amcheck awaited.  Phases: CRASH_PH_LEDGER the ledger
 * (load) check's own time, CRASH_PH_AMCHECK what pg_amcheck took beyond it.
 */
void crash_st_checks(struct st_run *s, const struct crash_state *st, struct crash_outcome *o);

#endif
