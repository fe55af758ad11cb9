/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash: what a crash during `pgload init` must leave (pure).
 *
 * The init point's state loads pgbench's tables into an empty cluster
 * (pgload init -s 1 --jobs 1 --ack-log FILE), then a CHECKPOINT, and the
 * device crashes somewhere in that.  pgload fdatasyncs a line to FILE once
 * the server acknowledged each statement: "drop", "create TABLE", "load" (the
 * one transaction of TRUNCATE and COPY FREEZE of branches, tellers and
 * accounts), "vacuum TABLE", "key TABLE" (ALTER TABLE ADD PRIMARY KEY); the
 * harness adds "checkpoint".  After the restart a catalog query says which
 * tables and primary keys exist, whether each key is valid and how many rows
 * each table holds.  PostgreSQL's semantics then require:
 *   - acknowledged is durable: a created table exists, an acknowledged load
 *     has all its rows, an acknowledged key exists;
 *   - a transaction is atomic: the load's three tables are all empty or all
 *     full (never a partial COPY, never one table without the others);
 *     history stays empty; a key is there and valid, or absent;
 *   - commits are durable in commit order (redo replays the WAL as a
 *     prefix): a key implies the load, rows imply their tables exist.
 * What was not acknowledged may be absent, or present whole (the commit
 * can reach the WAL before its acknowledgement reaches the client).
 * VACUUM changes no row: amcheck judges what it wrote.
 */
#ifndef DUTLAB_CRASH_LOAD_H
#define DUTLAB_CRASH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum crash_load_table { CRASH_LT_HISTORY = 0, CRASH_LT_TELLERS, CRASH_LT_ACCOUNTS, CRASH_LT_BRANCHES, CRASH_LT_N };

struct crash_load_acks {
	bool drop, create[CRASH_LT_N], load, vacuum[CRASH_LT_N], key[CRASH_LT_N], checkpoint;
	unsigned n;                   /* lines */
	char last[48];                /* the last acknowledged statement ("" none) */
};

struct crash_load_obs {
	bool table[CRASH_LT_N];       /* the table exists */
	int64_t rows[CRASH_LT_N];     /* its rows (when it exists) */
	bool key[CRASH_LT_N];         /* TABLE_pkey exists */
	bool key_valid[CRASH_LT_N];   /* ... and pg_index.indisvalid */
};

/* The catalog query whose output crash_load_parse_obs reads (psql -At). */
extern const char crash_load_query[];

/* The ack log's text; -EINVAL on a line it does not know (*bad_line its number). */
int crash_load_parse_acks(const char *text, struct crash_load_acks *ret, unsigned *bad_line);
/* psql -At output of crash_load_query ("name|kind|valid|rows" lines); -EINVAL. */
int crash_load_parse_obs(const char *text, struct crash_load_obs *ret);
/* The number of violations of the rules above for a load at scale; the first in detail. */
unsigned crash_load_judge(const struct crash_load_acks *a, const struct crash_load_obs *o, int64_t scale,
			  char *detail, size_t len);
const char *crash_load_table_name(enum crash_load_table t);

#endif
