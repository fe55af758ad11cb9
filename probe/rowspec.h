/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bench row syntax (pure).  A row is one CrystalDiskMark-style job:
 *
 *     ROW     := PATTERN BS [QD] [THREADS] [DIR]      tokens in any order after
 *                                                     PATTERN+BS, separated by
 *                                                     spaces, '-' or '_'
 *     PATTERN := SEQ | RND | RAND                     sequential or uniform random
 *     BS      := number [K|M]  (KiB / MiB; "B" and "iB" optional)   SEQ1M, RND4K, RND16KiB
 *     QD      := Q<n> | QD<n>                         default 1
 *     THREADS := T<n>                                 default 1; may follow Q: Q32T1
 *     DIR     := R | W | READ | WRITE                 absent: the row expands into
 *                                                     a read row and a write row
 *
 * Case does not matter.  "SEQ1M Q8T1 R", "seq1m-q8t1-read", "rnd4k_q32_t2_w" and
 * "RND4K Q1" (two rows) are all rows.  A list is rows separated by commas; the
 * word "default" stands for the six default rows.
 */
#ifndef DUTPROBE_ROWSPEC_H
#define DUTPROBE_ROWSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

#define BENCH_ROW_MAX_QD 4096u
#define BENCH_ROW_MAX_THREADS 64u
#define BENCH_ROW_MAX_BS (64u << 20)
#define BENCH_MAX_ROWS 32

enum probe_pattern { PROBE_SEQ, PROBE_RAND };
enum probe_dir { PROBE_READ, PROBE_WRITE };

struct bench_row {
	enum probe_pattern pattern;
	enum probe_dir dir;
	uint32_t bs_bytes;
	unsigned qd;
	unsigned threads;
};

/* SEQ 1 MiB QD8 R/W, RND 4 KiB QD32 R/W, RND 4 KiB QD1 R/W. */
extern const struct bench_row bench_default_rows[6];

/*
 * Parse one row spec and append 1 or 2 rows (2 when DIR is absent) to
 * rows[*n], advancing *n.  -EINVAL (bad token), -ERANGE (value out of range),
 * -ENOSPC (more than max rows); err explains, quoting the spec.
 */
int bench_row_parse(const char *spec, struct bench_row *rows, size_t max, size_t *n,
		    struct dut_error *err);
/* Comma-separated list of specs (or "default"), appended the same way. */
int bench_rows_parse_list(const char *list, struct bench_row *rows, size_t max, size_t *n,
			  struct dut_error *err);

/* Canonical name: "SEQ1M Q8T1 R", "RND4K Q32T1 W", "RND512 Q1T1 R". */
char *bench_row_name(const struct bench_row *r, char *buf, size_t len);

static inline bool bench_row_writes(const struct bench_row *r)
{
	return r->dir == PROBE_WRITE;
}

#endif
