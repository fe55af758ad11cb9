/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgbench-compatible COPY text rows, generated straight into a buffer
 * (no printf: the load is bound by how fast rows are made and parsed).
 * Rows are exactly what pgbench -i sends:
 *   pgbench_branches  "bid\t0\t\n"
 *   pgbench_tellers   "tid\tbid\t0\t\n"        bid = (tid - 1) / 10 + 1
 *   pgbench_accounts  "aid\tbid\t0\t\n"        bid = (aid - 1) / 100000 + 1
 * (the filler column gets the empty string, blank-padded by the server).
 * Pure code.
 */
#ifndef PGL_DATAGEN_H
#define PGL_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

enum pgl_table { PGL_T_BRANCHES, PGL_T_TELLERS, PGL_T_ACCOUNTS };

/* The longest row any table produces. */
#define PGL_ROW_MAX 48

/*
 * Append rows for keys *next .. last (1-based, inclusive) while they fit in
 * buf[0..len); advances *next past the rows written; returns the bytes
 * written (0 when nothing fits or *next > last).
 */
size_t pgl_gen_rows(enum pgl_table t, int64_t *next, int64_t last, char *buf, size_t len);

#endif
