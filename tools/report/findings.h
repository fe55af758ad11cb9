/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Findings: what the data of a run says, each sentence with the numbers it
 * rests on (pure: findings.c computes them from a loaded run model; the
 * numbers are kept in the struct so tests check them, and the sentence is
 * made from those same numbers).
 *
 * Definitions:
 *   - a random request is a read or write that is not sequential
 *     (tools/report/report.h: its offset is not where the previous one on that
 *     file ended);
 *   - run-to-run spread of a configuration: the min-max range of its
 *     repetitions; a difference between two configurations "exceeds the
 *     spread" when their ranges do not overlap (it needs >= 2 repetitions
 *     of each);
 *   - a bench row measured the cache when dutprobe flagged it
 *     (extra.cache_not_device: above the link's ceiling).
 */
#ifndef DUTLAB_FINDINGS_H
#define DUTLAB_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/report/rundir_model.h"

/* Fewer device reads per OLTP transaction than this: memory served the step (a trap). */
#define FIND_MEMORY_READS_PER_TX 0.01

enum finding_kind {
	FIND_RANDOM_READS,     /* the class most random reads went to (at least 10 of them) */
	FIND_WRITE_BYTES,      /* the class most written bytes went to */
	FIND_CACHE_ROW,        /* a dutprobe bench row faster than the link */
	FIND_DSS_PLANS,        /* queries whose plan changed against the first config */
	FIND_TPS_RATIO,        /* TPS of a config against the first */
	FIND_SLC_KNEE,         /* sequential write throughput level change */
	FIND_FILL_DROP,        /* random-write IOPS at the fullest vs the emptiest level */
	/* traps: what the run did not measure, and how to measure it */
	FIND_PAGE_CACHE,       /* an OLTP step made about no device reads per transaction */
	FIND_NO_FLASH,         /* the target is an image, file or directory on a virtual/unknown link */
	FIND_EMPTY_DRIVE,      /* a write test on an empty or freshly created target */
	FIND_CONNECT,          /* connection set-up took a large share of an OLTP step */
	FIND_CEILING,          /* a figure above the interface ceiling (any step kind) */
	FIND_DSS_UNSTABLE,     /* queries whose plan varied between repetitions of a config */
	FIND_CONTENDED,        /* other processes (or the hypervisor) took the CPUs during an OLTP step */
	FIND_CRASH,            /* a crash campaign: damage with fsync honoured, or a control that saw none */
	FIND_KIND_COUNT
};

struct finding {
	enum finding_kind kind;
	size_t config;         /* index into model->configs */
	size_t other;          /* the configuration compared with (TPS, DSS), else == config */
	char *subject;         /* class, row, step, query list, "QD8" */
	/*
	 * The numbers the sentence cites, per kind:
	 *   RANDOM_READS  count = {random reads of the class, all random reads}, value[0] = %
	 *   WRITE_BYTES   count = {bytes written to the class, all bytes written}, value[0] = %
	 *   CACHE_ROW     value = {B/s measured, link ceiling B/s}
	 *   DSS_PLANS     count = {queries whose plan changed, queries}, value = {m-time of
	 *                 config, m-time of other (s), ratio}, count[2] = queries in m-time,
	 *                 exceeds/shown as for TPS_RATIO (per-query min/max runs summed)
	 *   TPS_RATIO     value = {ratio of medians, median, other's median, min, max,
	 *                 other's min, other's max}, count = {reps, other's reps},
	 *                 exceeds = the ranges do not overlap
	 *   SLC_KNEE      value = {bytes before the knee, B/s before, B/s after, relative change}
	 *   FILL_DROP     value = {IOPS at fullest, IOPS at emptiest, ratio, fullest %, emptiest %}
	 *   PAGE_CACHE    count = {device reads, transactions, traced repetitions},
	 *                 value = {reads per transaction, memory budget B (0: none), database B}
	 *   NO_FLASH      value = {link ceiling B/s (0: unknown)}; subject = the link kind
	 *   EMPTY_DRIVE   subject = the step
	 *   CONNECT       value = {connection share %, TPS including, TPS excluding connections,
	 *                 mean connection time ns}, count = {runs}
	 *   CEILING       value = {B/s measured, link ceiling B/s}; subject = the step
	 *   DSS_UNSTABLE  count = {queries whose plan varied}; subject = the query list
	 *   CRASH         count = {damaged states with fsync honoured, such states, commits lost},
	 *                 value = {full_page_writes=off states that saw damage, run, fsync=off
	 *                 ones, run}; subject = the step; exceeds = damage or a blind control
	 */
	uint64_t count[3];
	double value[8];
	bool exceeds;
	bool shown;            /* TPS_RATIO: the difference is shown (exceeds, and not confounded by
	                        * the configurations running one after another) */
	bool trap;             /* says what the run did not measure (the kinds after FILL_DROP) */
	char *text;            /* the sentence */
};

struct findings {
	struct finding *v;
	size_t n;
};

int findings_build(const struct rundir_model *m, struct findings **ret);
void findings_free(struct findings *f);
const char *finding_kind_name(enum finding_kind k);

#endif
