/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pgload restore`: a timed pg_restore of a reference dump, phase by phase.
 *
 *   restore dump: pg_dump -Fc of a source database into FILE, plus a sidecar
 *                 FILE.json ("pgload-restore-dump") with the dump's size and
 *                 the source's catalog: exact row count per table, every
 *                 constraint (pg_get_constraintdef) and every index (indexdef).
 *   restore run:  creates the target database and runs pg_restore once per
 *                 phase; afterwards compares the target's catalog with the
 *                 sidecar's.
 *
 * Phases.  pre-data and data are pg_restore's own sections.  post-data is
 * split with list files (pg_restore -l / -L) by TOC entry type: INDEX and
 * INDEX ATTACH ("indexes"), CONSTRAINT ("constraints": primary keys, unique,
 * check and exclusion constraints; a primary key builds its index here), FK
 * CONSTRAINT ("foreign-keys"), and whatever else the post-data section holds
 * (triggers, rules, policies...: "post-data-other").
 *
 * CPU.  Per phase we record the wall time, the CPU time (user+system) of the
 * pg_restore process tree (wait4() rusage: pg_restore and the -j workers it
 * reaped), and the CPU time of the server: the sum of utime+stime of every
 * live child of the postmaster plus the postmaster's own utime+stime+cutime+
 * cstime (cutime/cstime hold the backends that exited and were reaped in
 * between), from /proc, as a difference over the phase.  Only possible when
 * the server runs on this host (its postmaster's cwd is its data directory).
 * "cores busy" = (server + client CPU) / wall.  A phase whose cores busy
 * comes near its usable parallelism (min(jobs, entries, CPUs)) is CPU-bound;
 * one far below it waited: for I/O, for locks, or for CPUs taken by other
 * programs.  To tell those apart each phase also records the pressure stall
 * information of the host (how long runnable tasks waited for a CPU, and
 * tasks for I/O), the run queue, and the server's I/O (psi.h): the
 * "bound" verdict (cpu-bound, cpu-starved, io-bound, lock-or-other-wait).
 *
 * This file is the pure part (TOC lists, catalog comparison, the result and
 * its renderers); restore_run.c does the work, main_restore.c the options.
 */
#ifndef PGL_RESTORE_H
#define PGL_RESTORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/result.h"
#include "pgload/notes.h"
#include "pgload/psi.h"

#define PGL_RESTORE_SIDECAR_SCHEMA "pgload-restore-dump"

enum pgl_restore_phase {
	PGL_RS_PRE_DATA,
	PGL_RS_DATA,
	PGL_RS_INDEXES,
	PGL_RS_CONSTRAINTS,
	PGL_RS_FKEYS,
	PGL_RS_POST_OTHER,
	PGL_RS_NPHASES,
};

const char *pgl_restore_phase_name(enum pgl_restore_phase p);

/*
 * Which post-data phase a line of `pg_restore -l` output belongs to:
 * PGL_RS_INDEXES, PGL_RS_CONSTRAINTS, PGL_RS_FKEYS, or PGL_RS_POST_OTHER for
 * every other entry (also pre-data and data ones: the post-data-other run
 * adds --section=post-data, which drops those).  -ENOENT for comments and
 * blank lines, -EINVAL for a line that is not a TOC entry.
 */
int pgl_restore_toc_classify(const char *line);

/* How many TOC entries of type `type` (in full: "TABLE DATA", "FK CONSTRAINT") `toc` lists; -errno. */
int pgl_restore_toc_count_type(const char *toc, const char *type);

/*
 * Write the list file for phase p (one of the post-data phases): every TOC
 * line of `toc`, those of other phases commented out with ';'.  Returns the
 * number of entries selected, or -errno.
 */
int pgl_restore_toc_select(const char *toc, enum pgl_restore_phase p, FILE *out);

/* A database's catalog as the sidecar and the check see it. */
struct pgl_restore_table {
	char *name;            /* schema.table */
	int64_t rows;
};

struct pgl_restore_catalog {
	size_t ntables, ncons, nindexes;
	struct pgl_restore_table *tables;   /* sorted by name */
	char **cons;           /* "table|name|type|definition", sorted */
	char **indexes;        /* "table|name|indexdef", sorted */
};

int pgl_restore_catalog_add_table(struct pgl_restore_catalog *c, const char *name, int64_t rows);
int pgl_restore_catalog_add_con(struct pgl_restore_catalog *c, const char *table,
				const char *name, const char *type, const char *def);
int pgl_restore_catalog_add_index(struct pgl_restore_catalog *c, const char *table,
				  const char *name, const char *def);
/* Sort the arrays (the comparison expects sorted catalogs). */
void pgl_restore_catalog_sort(struct pgl_restore_catalog *c);
int64_t pgl_restore_catalog_rows(const struct pgl_restore_catalog *c);
void pgl_restore_catalog_free(struct pgl_restore_catalog *c);

/*
 * Compare the restored catalog `got` with the source's `want`.  Returns the
 * number of differences; the first few are described in diff (one per line).
 */
unsigned pgl_restore_catalog_diff(const struct pgl_restore_catalog *want,
				  const struct pgl_restore_catalog *got, char *diff, size_t len);

/* The sidecar document. */
struct pgl_restore_sidecar {
	char source[4096];     /* conninfo of the source, without password */
	char dbname[128];
	char server_version[64];
	char created[32];
	uint64_t dump_bytes;
	uint64_t dump_ns;
	struct pgl_restore_catalog cat;
};

json_object *pgl_restore_sidecar_to_json(const struct pgl_restore_sidecar *s);
/* On error err quotes the member at fault; ret is filled only on success. */
int pgl_restore_sidecar_from_json(json_object *o, struct pgl_restore_sidecar *ret,
				  struct dut_error *err);

/* The result of `restore run`. */
struct pgl_restore_phase_result {
	bool ran;
	int entries;              /* TOC entries selected; -1 = the whole section */
	uint64_t wall_ns;
	uint64_t client_cpu_ns;   /* pg_restore and its workers */
	bool server_cpu_known;
	uint64_t server_cpu_ns;
	unsigned usable_cpus;     /* min(jobs, entries, CPUs); pre-data is serial */
	struct pgl_pressure pr;   /* PSI, run queue, server I/O (psi.h) */
};

struct pgl_restore_result {
	char dump[4096];
	char target[4096];        /* conninfo without password */
	char dbname[128];
	char server_version[64];
	char data_directory[4096];
	char server_cpu_note[256];   /* why server CPU was not measured, or "" */
	char server_io_note[256];    /* why the server's I/O was not measured, or "" */
	uint32_t block_size;
	unsigned jobs, cpus;
	uint64_t dump_bytes;
	int64_t rows;                /* from the sidecar, or counted after the restore; -1 unknown */
	bool checked;                /* catalog compared with the sidecar */
	unsigned differences;
	char diff[2048];
	struct pgl_restore_phase_result ph[PGL_RS_NPHASES];
	/* For the program to print (restore_run.c prints nothing): where the phase
	 * markers go (--debug), and what went wrong without stopping the restore
	 * (a control file refused, a marker dutfs did not take). */
	struct dut_error markers_where;
	struct pgl_notes notes;
};

/* Sum of the phases. */
void pgl_restore_total(const struct pgl_restore_result *r, struct pgl_restore_phase_result *ret);
/* (server + restore CPU) / wall */
double pgl_restore_cores_busy(const struct pgl_restore_phase_result *p);
/*
 * The first verdict, kept for readers of the JSON "verdict": "cpu-bound",
 * "waiting" (I/O, locks or other programs), or "unknown".
 */
const char *pgl_restore_verdict(const struct pgl_restore_phase_result *p);
/* The verdict from PSI and the run queue too (psi.h), reason the numbers behind it. */
enum pgl_bound pgl_restore_bound(const struct pgl_restore_phase_result *p, char *reason, size_t len);
void pgl_restore_print(const struct pgl_restore_result *r, FILE *out);
int pgl_restore_to_doc(const struct pgl_restore_result *r, struct dut_result *doc);

#endif
