/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab report: a trace (plus an optional relation map) becomes a struct
 * report (pure: report.c); renderers print it (report_render.c).
 *
 * Definitions the output states:
 *   - read ops: op read; write ops: op write and mmap_write; fsyncs: fsync
 *     and fdatasync.  Bytes are bytes done (result > 0).
 *   - a read or write is sequential when it starts where the previous read
 *     or write on the same file ended (offset == previous offset + len, in
 *     timestamp order, any direction), or at most one page before that
 *     end: a tail rewrite (PostgreSQL rewrites the current, partly filled
 *     WAL page at every commit; a re-read of the last page read is the
 *     same for reads).  The page is the run's: XLOG_BLCKSZ for WAL files,
 *     BLCKSZ for the others (struct rep_pages: a run's manifest records
 *     both, a relation map the block size); REP_TAIL_PAGE_BYTES (8 KiB,
 *     Debian's build) where nothing says.  Tail rewrites
 *     are counted in seq_ops and, besides, in rewrite_ops.  Everything else
 *     is random: a jump forward or more than a page back; the first request
 *     on a file is random.
 *   - request sizes: power-of-two bins of len; bin k holds [2^k, 2^(k+1)),
 *     bin 0 also holds 0.
 *   - dutfs time: a record's dutfs_ns (trace 1.1: dutfs's own time beyond
 *     lat_ns, lib/trace.h).  Counted for reads, writes and fsyncs whose
 *     record has it (dutfs_ns != 0); its share of the request time is
 *     sum dutfs_ns / sum (lat_ns + dutfs_ns) over those records.
 */
#ifndef DUTLAB_REPORT_H
#define DUTLAB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/io_class.h"
#include "lib/hist.h"
#include "lib/hist_sparse.h"
#include "lib/trace.h"
#include "lib/relmap.h"

/* The classes of lib/io_class.h, under the report's names. */
enum rep_class {
	RC_HEAP = DUT_IO_HEAP, RC_INDEX = DUT_IO_INDEX, RC_TOAST = DUT_IO_TOAST, RC_FSM = DUT_IO_FSM,
	RC_VM = DUT_IO_VM, RC_WAL = DUT_IO_WAL, RC_SLRU = DUT_IO_SLRU, RC_TEMP = DUT_IO_TEMP,
	RC_OTHER = DUT_IO_OTHER, RC_COUNT = DUT_IO_CLASS_COUNT
};

enum rep_by { REP_BY_CLASS = 0, REP_BY_FILE, REP_BY_RELATION, REP_BY_PHASE, REP_BY_PROCESS };

enum rep_dir { REP_READ = 0, REP_WRITE = 1 };

#define REP_SIZE_BINS 33

/* PostgreSQL's page (BLCKSZ and XLOG_BLCKSZ as built by Debian): how far back a tail rewrite
 * starts when the trace's own page sizes are not known. */
#define REP_TAIL_PAGE_BYTES 8192u

/* The page sizes of the server that made a trace, in bytes; 0: not known (REP_TAIL_PAGE_BYTES,
 * or for block_bytes the relation map's block_size).  Tail rewrites of WAL files are measured
 * in wal_block_bytes (XLOG_BLCKSZ), of every other file in block_bytes (BLCKSZ). */
struct rep_pages {
	uint32_t block_bytes, wal_block_bytes;
};

/*
 * The WAL page (XLOG_BLCKSZ) of a trace that comes without a run's manifest
 * (dutlab report TRACE), from the trace's own WAL writes: PostgreSQL writes
 * WAL in whole pages from a page boundary (XLogWrite; the segment's zero
 * fill likewise), so nearly every write to a WAL segment is page-aligned in
 * offset and length.  The page is the largest power of two from
 * REP_TAIL_PAGE_BYTES to 64 KiB that at least REP_WAL_GUESS_ALIGNED_PCT %
 * of the counted writes are aligned to, counted over at least
 * REP_WAL_GUESS_MIN_WRITES writes (op write with a positive result, to files
 * classed DUT_PG_WAL); else not known (0, and REP_TAIL_PAGE_BYTES applies).
 * Never below REP_TAIL_PAGE_BYTES: the writes that are not page-aligned are
 * the device view's writeback splits (a FUSE request ends at its page limit,
 * a multiple of 4 KiB) and a standby's walreceiver (it writes where the
 * stream ends), which would make an 8 KiB server look like a 4 KiB one; and
 * a page measured too large costs little (a WAL write more than one page
 * back from the previous end does not happen), one too small misses every
 * rewrite.  A trace with few writes that all happen to be aligned to two
 * pages would read as the larger page: hence the minimum count, and
 * --wal-block-size to say it.
 */
#define REP_WAL_GUESS_MIN_WRITES 32u
#define REP_WAL_GUESS_ALIGNED_PCT 95u
#define REP_WAL_GUESS_SIZES 7          /* 1 KiB << i, i < 7: 1 to 64 KiB */

struct rep_wal_guess {
	uint64_t writes;                       /* counted WAL writes */
	uint64_t aligned[REP_WAL_GUESS_SIZES]; /* of them, offset and length multiples of 1 KiB << i */
};

/* Count one record of a WAL segment (the caller picks the files; other ops are ignored). */
void rep_wal_guess_add(struct rep_wal_guess *g, const struct dut_trace_rec *r);
/* The WAL page in bytes, 0 when the writes do not say (the rule above). */
uint32_t rep_wal_guess_page(const struct rep_wal_guess *g);

/* "16kB", "16k", "16" (kB) or "16384" (bytes, 1024 and up): a WAL page size PostgreSQL
 * accepts (a power of two from 1 to 64 kB), in bytes; -EINVAL otherwise. */
int rep_wal_block_parse(const char *s, uint32_t *ret_bytes);

/* How a read or write continues the stream of its file (the rule above). */
enum rep_access { REP_ACCESS_RANDOM = 0, REP_ACCESS_SEQUENTIAL, REP_ACCESS_TAIL_REWRITE };

/* The access of a request at offset after one that ended at prev_end (has_prev: there was one),
 * in a file of page_bytes pages (0: REP_TAIL_PAGE_BYTES).  Inline: the builder asks per record. */
static inline enum rep_access rep_access_of(bool has_prev, uint64_t prev_end, uint64_t offset,
					    uint32_t page_bytes)
{
	if (!page_bytes)
		page_bytes = REP_TAIL_PAGE_BYTES;
	if (!has_prev)
		return REP_ACCESS_RANDOM;
	if (offset == prev_end)
		return REP_ACCESS_SEQUENTIAL;
	/* starts inside the last page the previous request reached: the tail again */
	if (offset < prev_end && prev_end - offset <= page_bytes)
		return REP_ACCESS_TAIL_REWRITE;
	return REP_ACCESS_RANDOM;
}

struct rep_dirstats {
	uint64_t ops, bytes, seq_ops, errors;
	uint64_t seq_bytes;            /* bytes done by the seq_ops */
	uint64_t rewrite_ops;          /* of seq_ops: tail rewrites (re-reads) */
	uint64_t size_bins[REP_SIZE_BINS];
	struct dut_shist *lat;         /* NULL until the first op */
};

/* dutfs's own time of the reads, writes and fsyncs that recorded it. */
struct rep_dutfs {
	uint64_t reqs;                 /* records with dutfs_ns */
	uint64_t sum_ns;               /* sum of their dutfs_ns */
	uint64_t req_sum_ns;           /* sum of their lat_ns + dutfs_ns: the whole request time */
	struct dut_shist *hist;        /* dutfs_ns; NULL until the first one */
};

struct rep_stats {
	struct rep_dirstats dir[2];
	uint64_t fsyncs;
	struct dut_shist *fsync_lat;   /* NULL until the first fsync */
	uint64_t other_ops;            /* open, release, truncate, ... */
	struct rep_dutfs dutfs;
};

/* A finding when dutfs took more than this share of a class's request time. */
#define REP_DUTFS_SHARE_FINDING_PCT 20.0
/* ... and the class had at least this many requests with dutfs time, */
#define REP_DUTFS_FINDING_MIN_REQS 10
/* ... and at least this share of the whole trace's request time: a class
 * whose requests are a sliver of the run did not set the run's pace. */
#define REP_DUTFS_FINDING_MIN_TIME_PCT 5.0

/* "the instrument, not the device, set the pace for CLASS" (whole trace). */
struct rep_dutfs_finding {
	enum rep_class cls;
	double share_pct;              /* rep_dutfs_share_pct of the class */
	uint64_t reqs;
	uint64_t dutfs_p50_ns, lat_p50_ns; /* medians of dutfs_ns and of lat_ns (same records) */
};

/* One row of a breakdown (a file, a relation, a process, a phase). */
struct rep_row {
	char *name;
	char *detail;                  /* class, kind, role; "" when none */
	struct rep_stats st;
};

/* The time step of a phase's data-file write series. */
#define REP_TICK_NS 100000000ull

struct rep_phase {
	char *name;
	uint64_t start_ns, end_ns;     /* [start, end) in trace time; whole trace: first..last record */
	struct rep_stats total;
	struct rep_stats cls[RC_COUNT];
	/*
	 * Bytes written to data files (classes heap, index and toast: the
	 * tables' and indexes' files) per REP_TICK_NS from start_ns, for
	 * write bursts against a step's per-second TPS; ticks at or beyond
	 * ndata_ticks wrote nothing.  Marker phases only: NULL (ndata_ticks
	 * 0) for the whole trace, or when none wrote.
	 */
	uint64_t *data_write_ticks;
	size_t ndata_ticks;
};

struct report {
	/* facts about the trace */
	bool syscall_view;
	uint64_t nrecs;
	bool has_footer;
	struct dut_trace_footer footer;
	bool truncated;
	uint64_t valid_bytes;
	bool have_relmap;
	uint64_t unmapped_rel_recs;    /* relation-file records the relmap did not name */
	uint64_t unknown_file_recs;    /* records whose file id has no FILE entry */
	uint16_t trace_version_major, trace_version_minor;
	struct rep_pages pages;        /* the page sizes the tail rewrites were measured in (never 0) */
	bool dutfs_recorded;           /* some record has dutfs_ns (a 1.1 trace from a dutfs that measures it) */
	struct rep_dutfs_finding dutfs_findings[RC_COUNT]; /* largest share first */
	size_t ndutfs_findings;

	/* phases[0] is the whole trace; then one per marker (and "(before first marker)") */
	struct rep_phase *phases;
	size_t nphases;
	/* whole-trace breakdowns, sorted by bytes (read + write), then name */
	struct rep_row *files, *relations, *processes;
	size_t nfiles, nrelations, nprocesses;
	struct rep_rotation *rot;      /* a rotated trace (--trace-max, report_seconds.h); NULL: not */
};

const char *rep_class_name(enum rep_class c);
int rep_by_parse(const char *s, enum rep_by *ret);
const char *rep_by_name(enum rep_by by);

/* The report class of one file (with relmap when not NULL, at time ts_ns). */
enum rep_class rep_classify(const struct dut_pg_file *pg, const struct relmap *m, uint64_t ts_ns,
			    const struct relmap_rel **ret_rel);

/*
 * Building (report_build.c): one pass over the records in timestamp order
 * (ties in file order), holding statistics, never records.
 *   report_build: a loaded trace (t->recs sorted, as dut_trace_load makes it);
 *   report_build_stream: the streaming reader, for traces of any length.
 * Both give the same report for the same file.
 */
int report_build(const struct dut_trace *t, const struct relmap *m, struct report **ret);
int report_build_stream(struct dut_trace_stream *s, const struct relmap *m, struct report **ret);
/* The same with the server's page sizes (pages NULL or its fields 0: not known). */
int report_build_pages(const struct dut_trace *t, const struct relmap *m, const struct rep_pages *pages,
		       struct report **ret);
int report_build_stream_pages(struct dut_trace_stream *s, const struct relmap *m,
			      const struct rep_pages *pages, struct report **ret);
/* The same, and every write to a WAL segment (its FILE entry's class) into g (NULL: none). */
int report_build_stream_watch(struct dut_trace_stream *s, const struct relmap *m,
			      const struct rep_pages *pages, struct rep_wal_guess *g, struct report **ret);
/*
 * The pass cut into `ways` time windows, built on as many threads and
 * summed (report_build_par.c): the same report.  ways 0: one per CPU this
 * process may run on (at most REP_PAR_MAX_WAYS) when the trace has a
 * million records or more, else one builder with the merge on a second
 * thread.  report_build_ways: a loaded trace cut into ways runs of records
 * (any cut: the tests' reference for the windows' sum).
 */
#define REP_PAR_MAX_WAYS 8u
int report_build_stream_ways(struct dut_trace_stream *s, const struct relmap *m,
			     const struct rep_pages *pages, struct rep_wal_guess *g, unsigned ways,
			     struct report **ret);
/* The same over windows [bounds[i], bounds[i + 1]) of the trace's time, i < k (bounds[0] 0, bounds[k] UINT64_MAX). */
int report_build_stream_windows(struct dut_trace_stream *s, const struct relmap *m,
				const struct rep_pages *pages, struct rep_wal_guess *g, unsigned k,
				const uint64_t *bounds, struct report **ret);
int report_build_ways(const struct dut_trace *t, const struct relmap *m, const struct rep_pages *pages,
		      unsigned ways, struct report **ret);
void report_free(struct report *rep);

/*
 * The pass itself: meta is the trace without its records (nrecs their
 * count; it must outlive the builder), first_ns/last_ns the earliest and
 * latest record.  _add takes records in order; _finish checks that nrecs
 * came and frees the builder (also on error).
 */
struct report_builder;
int report_builder_new(const struct dut_trace *meta, uint64_t first_ns, uint64_t last_ns,
		       const struct relmap *m, struct report_builder **ret);
int report_builder_add(struct report_builder *b, const struct dut_trace_rec *recs, size_t n);
/* The server's page sizes (see struct rep_pages), before the first _add; fields 0 keep the default. */
void report_builder_set_pages(struct report_builder *b, const struct rep_pages *pages);
int report_builder_finish(struct report_builder *b, struct report **ret);
void report_builder_free(struct report_builder *b);

/* Percentage of a in b (0 when b is 0). */
double rep_pct(uint64_t a, uint64_t b);
/* dutfs's share of the request time, in % (0 without dutfs time). */
double rep_dutfs_share_pct(const struct rep_dutfs *d);
/* Whether class cls of a trace whose all-class figures are total is an
 * "instrument set the pace" finding (the REP_DUTFS_FINDING_* thresholds). */
bool rep_dutfs_is_finding(const struct rep_dutfs *cls, const struct rep_dutfs *total);

/* ---- renderers (report_render.c) ---- */
struct report_opts {
	const char *trace_path;
	const char *relmap_path;       /* NULL: no relmap */
	enum rep_by by;
	unsigned top;                  /* rows per breakdown table; 0 = all */
	int argc;
	char *const *argv;
};

struct report_renderer {
	const char *name;
	/* human: writes to out; json: dest is the file ("-" = stdout) */
	int (*render)(const struct report *rep, const struct report_opts *o, FILE *out,
		      const char *dest);
};

extern const struct report_renderer report_render_human;
extern const struct report_renderer report_render_json;

#endif
