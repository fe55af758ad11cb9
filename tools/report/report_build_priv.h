/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the builder's files: report_build.c (the pass),
 * report_build_merge.c (one builder's statistics into another's) and
 * report_build_par.c (the pass over time windows on several threads).
 */
#ifndef DUTLAB_REPORT_BUILD_PRIV_H
#define DUTLAB_REPORT_BUILD_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/relmap.h"
#include "lib/trace.h"
#include "tools/report/report.h"
#include "tools/report/report_priv.h"

/* Per-file state during the walk, with the file's row. */
struct fstate {
	uint32_t id;
	const struct dut_trace_file *f; /* NULL: no FILE entry */
	bool has_last;
	uint64_t last_end;
	struct rep_row row;
	/*
	 * The file's records since its relation row or phase last changed:
	 * merged into its own row, that relation row and that phase's class
	 * when they change and at the end (part_flush), so a record costs one
	 * statistics add here instead of three.
	 */
	struct rep_stats part;
	bool part_used;
	size_t part_rel_row, part_phase;
	enum rep_class part_cls;
	/*
	 * The findings' latencies of dutfs-timed records (b->dutfs_lat): while
	 * every read, write and fsync of the part had dutfs_ns, they are the
	 * part's latency histograms, merged in at part_flush (a merge per part
	 * instead of an add per record); after the first without, the part's
	 * dutfs-timed records are added one by one (part_dutfs_direct).
	 */
	bool part_dutfs_direct;
	const struct relmap_rel *rel_cached;
	bool rel_valid;
	size_t rel_row;
	/* no relation map, or not a relation's file: the class does not depend on the time */
	bool cls_fixed;
	enum rep_class cls;
	/*
	 * The fast path (rec_fast): phase + 1 while the part takes this file's
	 * records with no checks but the phase's, 0 when every record goes
	 * through walk_rec.  Set by walk_rec for a file of fixed class: its
	 * class and relation row then cannot change, so the part's keys stay
	 * until the phase does.
	 */
	size_t fast_phase_plus1;
	uint32_t page_bytes;           /* of its tail rewrites: the WAL page for WAL files */
	bool is_data;                  /* heap, index or toast: its writes go into data_tick_add */
	bool wal;                      /* its FILE entry says WAL: its writes go into wal_guess */
	/*
	 * A builder of a later time window (report_builder.later): its first
	 * read or write of this file, counted as random for want of the one
	 * before it (in the window before), and where it was counted, so that
	 * report_builder_absorb() can count it again as the whole pass would.
	 */
	struct rep_first_rw {
		bool set;
		enum rep_dir d;
		uint64_t offset, done;
		size_t phase, rel_row, proc_row;
		enum rep_class cls;
	} first;
};

/* File ids are handed out in sequence: below this, look them up in a table. */
#define DIRECT_IDS (1u << 20)
#define PID_SLOTS 1024u

struct pid_slot {
	uint32_t pid;
	uint32_t row_plus1;            /* 0: empty */
};

struct report_builder {
	const struct dut_trace *meta;
	const struct relmap *m;
	struct report *rep;
	struct fstate *fs;             /* sorted by id: the FILE entries, then ids records name */
	size_t nfs, cap_fs;
	uint32_t *by_id;               /* id < nby_id -> index in fs + 1 (0: none) */
	size_t nby_id;
	struct rep_rows rels, procs;
	struct pid_slot pids[PID_SLOTS]; /* pid -> process row, a cache in front of rep_rows_get */
	size_t phase;
	uint64_t nrecs;                /* records added */
	/* lat_ns of the records with dutfs_ns, per class: the findings' device median */
	struct dut_shist *dutfs_lat[RC_COUNT];
	bool added;                    /* a record came: the page sizes are fixed */
	bool general_only;             /* every record through walk_rec (report_builder_set_general_only) */
	bool later;                    /* records before its first one went to another builder */
	/* the WAL segments' writes are counted here too (report_build_stream_watch); NULL: not counted */
	struct rep_wal_guess *wal_guess;
};

/* Flush fs's part into its rows (report_build.c). */
int rep_part_flush(struct report_builder *b, struct fstate *fs);
/* The state of file id, made (with its row) when the builder has none (report_build.c). */
int rep_fstate_of(struct report_builder *b, uint32_t id, struct fstate **ret);
/* The page of a file's tail rewrites, as the pass takes it (report_build.c). */
uint32_t rep_fstate_page(const struct report_builder *b, const struct fstate *fs);
/*
 * a += b: a the builder of the trace's first time window (not later),
 * having absorbed the windows up to b's, b the builder of the next one
 * (later): the statistics a would have after b's records too.  No records
 * are added to a after; b keeps its memory (report_build_merge.c).
 */
int report_builder_absorb(struct report_builder *a, struct report_builder *b);

#endif
