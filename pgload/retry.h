/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Retry accounting for transactions that fail with a serialization failure
 * (SQLSTATE 40001) or a deadlock (40P01), as pgbench --max-tries does: such a
 * transaction is rolled back and run again with the same variables, up to
 * max_tries tries in all; any other error aborts the client.  Pure code.
 */
#ifndef PGL_RETRY_H
#define PGL_RETRY_H

#include <stdint.h>

enum pgl_errclass {
	PGL_ERR_NONE = 0,
	PGL_ERR_SERIALIZATION,  /* 40001 */
	PGL_ERR_DEADLOCK,       /* 40P01 */
	PGL_ERR_OTHER,
};

enum pgl_retry_action {
	PGL_RETRY,        /* roll back and run the same transaction again */
	PGL_FAIL_TXN,     /* tries exhausted: count a failed transaction, go on */
	PGL_ABORT_CLIENT, /* not retryable: the client stops */
};

struct pgl_retry_stats {
	uint64_t retries;                 /* extra tries, over all transactions */
	uint64_t retried_txns;            /* committed after more than one try */
	uint64_t serialization_errors;    /* every 40001 seen */
	uint64_t deadlock_errors;         /* every 40P01 seen */
	uint64_t failed_txns;             /* gave up after max_tries */
	uint64_t failed_serialization;    /* ... whose last error was 40001 */
	uint64_t failed_deadlock;         /* ... whose last error was 40P01 */
	uint64_t other_errors;            /* errors that aborted a client */
};

/* NULL or unknown -> PGL_ERR_OTHER. */
enum pgl_errclass pgl_errclass_of(const char *sqlstate);
const char *pgl_errclass_name(enum pgl_errclass c);

/*
 * An error ended try number `tries` (1 = first try) of a transaction;
 * max_tries >= 1.  Counts the error and says what to do.
 */
enum pgl_retry_action pgl_retry_on_error(struct pgl_retry_stats *s, enum pgl_errclass c,
					 unsigned tries, unsigned max_tries);
/* A transaction committed on try number `tries`. */
void pgl_retry_on_commit(struct pgl_retry_stats *s, unsigned tries);
void pgl_retry_merge(struct pgl_retry_stats *dst, const struct pgl_retry_stats *src);

#endif
