/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic dutfs traces (pure): the frame layout the real writer makes
 * (docs/trace-format.md), with made-up but PostgreSQL-shaped records, for
 * the streaming report's tests and benchmarks (tools/trace-gen, docs/soak.md).
 *
 * Records are made in time order and handed to `threads` simulated worker
 * threads; every `round_recs` records (the writer's flush) each thread's
 * buffer becomes one RECORDS frame (at most frame_recs records, more
 * frames if it holds more), threads in a fixed order.  FILE entries come
 * before or after a file's first record, markers when they happen.
 * Options make the cases a merge must get right: records written after
 * later ones of their thread (disorder, as an open waiting for its reply),
 * one written many rounds late (straggler), equal timestamps on one file
 * from several threads (ties), ids without FILE entry, no footer.
 * The same options and seed give the same bytes.
 */
#ifndef DUTLAB_TRACE_GEN_H
#define DUTLAB_TRACE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_gen_opts {
	uint64_t records;
	uint64_t seed;
	unsigned threads;        /* 0: 8 */
	unsigned round_recs;     /* records per writer round, all threads (0: 64 * threads) */
	unsigned frame_recs;     /* max records per RECORDS frame (0: 16384) */
	unsigned files;          /* FILE entries (0: 40) */
	unsigned pids;           /* processes (0: 12) */
	unsigned markers;        /* phase markers, evenly over the records */
	uint64_t mean_gap_ns;    /* between records (0: 50 us) */
	unsigned disorder_pct;   /* % of records held back behind their thread's next one */
	unsigned stragglers;     /* records written that many rounds late (one per 100k records) */
	bool ties;               /* a quarter of the gaps are 0 */
	bool unknown_ids;        /* some records name ids without FILE entry */
	bool dutfs_heavy;        /* dutfs time larger than the backing call on WAL (a finding) */
	bool no_footer;
	bool v1_0;               /* a 1.0 trace: the dutfs_ns word holds junk the reader ignores */
	bool compact;            /* a 2.1 trace: CSPAN and CRECORDS frames (else 1.1: 48-byte RECORDS) */
	bool v2_0;               /* with compact: a 2.0 trace, CRECORDS frames without CSPAN */
};

/* Called with consecutive pieces of the file; returns 0 or -errno. */
typedef int (*trace_gen_write_fn)(void *ctx, const void *p, size_t n);

int trace_gen(const struct trace_gen_opts *o, trace_gen_write_fn write, void *ctx);

#endif
