/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ledger workload: crash-consistency evidence kept outside the database.
 *
 * Each ledger transaction does the tpcb-like updates (one account, teller
 * and branch balance, one pgbench_history row) and inserts its id into two
 * tables, ledger_txn and ledger_item.  Each client appends to its own file,
 * fdatasync'ed before it goes on:
 *     B <id>    just before COMMIT is sent (the transaction may commit)
 *     C <id>    after the server acknowledged the COMMIT
 * An id with a B and no C was in flight when the client failed: it may or
 * may not be there, but whole.  An id without a B never reached COMMIT and
 * must be absent.
 *
 * After a crash and a restart the check (pure, here) compares the files with
 * what the database holds:
 *   - lost:       an acknowledged id in neither table
 *   - half:       an id in one table and not the other (any id)
 *   - unexpected: an id present that never reached COMMIT
 *   - balances:   the sums of the account, teller and branch balances and of
 *                 the history deltas moved exactly by the ledger's deltas
 *                 (from the baseline taken at `ledger init`), and no account
 *                 differs from the deltas booked to it.
 */
#ifndef PGL_LEDGER_H
#define PGL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/error.h"

/* A growable array of ids; sorted and unique after pgl_ids_sort(). */
struct pgl_ids {
	int64_t *v;
	size_t n, cap;
};

int pgl_ids_add(struct pgl_ids *a, int64_t id);
void pgl_ids_sort(struct pgl_ids *a);
bool pgl_ids_has(const struct pgl_ids *a, int64_t id);   /* sorted a */
void pgl_ids_free(struct pgl_ids *a);

/* The clients' files, read back. */
struct pgl_ledger {
	struct pgl_ids begun;        /* B lines */
	struct pgl_ids acked;        /* C lines */
	uint64_t partial_lines;      /* a last line cut short (the harness died mid-write) */
};

/* Add one client file's text; -EINVAL (err: the line) for a malformed line. */
int pgl_ledger_parse(struct pgl_ledger *l, const char *text, size_t len, const char *name,
		     struct dut_error *err);
void pgl_ledger_free(struct pgl_ledger *l);

/* What the database holds (ledger_check_pg.c reads it). */
struct pgl_ledger_db {
	struct pgl_ids txn, item;    /* ids in ledger_txn and ledger_item */
	int64_t txn_delta_sum;       /* sum(delta) of ledger_txn */
	int64_t abalance_moved, tbalance_moved, bbalance_moved;   /* sum now - baseline */
	int64_t history_moved;       /* sum(delta) of pgbench_history now - baseline */
	int64_t history_rows_added;  /* count(*) now - baseline */
	int64_t accounts_off;        /* accounts whose balance moved by other than their ledger deltas */
};

void pgl_ledger_db_free(struct pgl_ledger_db *d);

#define PGL_LEDGER_EXAMPLES 5

struct pgl_ledger_verdict {
	uint64_t acked, in_flight;           /* C ids; B ids without C */
	uint64_t present;                    /* ids in both tables */
	uint64_t in_flight_present;          /* of the in-flight ones */
	uint64_t lost;                       /* acknowledged, absent from both tables */
	uint64_t half;                       /* in one table only */
	uint64_t unexpected;                 /* present but never reached COMMIT */
	bool balances_agree;
	char balance_detail[200];            /* which sum disagreed, "" when they agree */
	int64_t lost_ids[PGL_LEDGER_EXAMPLES], half_ids[PGL_LEDGER_EXAMPLES];
	bool ok;                             /* nothing of the above */
};

/* Pure: l and d are sorted (pgl_ids_sort) by the caller or here. */
void pgl_ledger_check(struct pgl_ledger *l, struct pgl_ledger_db *d, struct pgl_ledger_verdict *ret);

/* The two renderers of the verdict. */
void pgl_ledger_verdict_print(const struct pgl_ledger_verdict *v, FILE *out);
struct json_object *pgl_ledger_verdict_json(const struct pgl_ledger_verdict *v);

/* Ledger ids: client c (0-based), its k-th transaction (1-based). */
static inline int64_t pgl_ledger_id(unsigned client, uint64_t k)
{
	return (int64_t)(((uint64_t)client + 1) << 32 | (k & 0xffffffffu));
}

#endif
