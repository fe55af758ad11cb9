/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by results_db.c and results_push.c. */
#ifndef DUTLAB_RESULTS_DB_PRIV_H
#define DUTLAB_RESULTS_DB_PRIV_H

#include <libpq-fe.h>

#include "lib/error.h"

/* err = "what: the server's message"; clears res; -EIO. */
int rdb_result_error(PGresult *res, const char *what, struct dut_error *err);
/* A statement without parameters. */
int rdb_exec(PGconn *c, const char *sql, const char *what, struct dut_error *err);

#endif
