/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "pgload/retry.h"

enum pgl_errclass pgl_errclass_of(const char *sqlstate)
{
	if (!sqlstate)
		return PGL_ERR_OTHER;
	if (strcmp(sqlstate, "40001") == 0)
		return PGL_ERR_SERIALIZATION;
	if (strcmp(sqlstate, "40P01") == 0)
		return PGL_ERR_DEADLOCK;
	return PGL_ERR_OTHER;
}

const char *pgl_errclass_name(enum pgl_errclass c)
{
	switch (c) {
	case PGL_ERR_NONE: return "none";
	case PGL_ERR_SERIALIZATION: return "serialization failure";
	case PGL_ERR_DEADLOCK: return "deadlock";
	case PGL_ERR_OTHER: break;
	}
	return "other error";
}

enum pgl_retry_action pgl_retry_on_error(struct pgl_retry_stats *s, enum pgl_errclass c,
					 unsigned tries, unsigned max_tries)
{
	switch (c) {
	case PGL_ERR_SERIALIZATION:
		s->serialization_errors++;
		break;
	case PGL_ERR_DEADLOCK:
		s->deadlock_errors++;
		break;
	default:
		s->other_errors++;
		return PGL_ABORT_CLIENT;
	}
	if (tries < max_tries) {
		s->retries++;
		return PGL_RETRY;
	}
	s->failed_txns++;
	if (c == PGL_ERR_SERIALIZATION)
		s->failed_serialization++;
	else
		s->failed_deadlock++;
	return PGL_FAIL_TXN;
}

void pgl_retry_on_commit(struct pgl_retry_stats *s, unsigned tries)
{
	if (tries > 1)
		s->retried_txns++;
}

void pgl_retry_merge(struct pgl_retry_stats *dst, const struct pgl_retry_stats *src)
{
	dst->retries += src->retries;
	dst->retried_txns += src->retried_txns;
	dst->serialization_errors += src->serialization_errors;
	dst->deadlock_errors += src->deadlock_errors;
	dst->failed_txns += src->failed_txns;
	dst->failed_serialization += src->failed_serialization;
	dst->failed_deadlock += src->failed_deadlock;
	dst->other_errors += src->other_errors;
}
