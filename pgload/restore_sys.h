/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system side of `pgload restore` (restore_sys.c): child processes,
 * server CPU from /proc, conninfo rewriting and catalog snapshots.
 * 0 or -errno; err explains.
 */
#ifndef PGL_RESTORE_SYS_H
#define PGL_RESTORE_SYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <libpq-fe.h>

#include "lib/error.h"
#include "pgload/restore.h"

/* A finished child: exit status, CPU of it and the children it reaped, stderr tail. */
struct pgl_child {
	int status;               /* exit code, or 128 + signal */
	uint64_t cpu_ns;          /* user + system */
	uint64_t wall_ns;
	char err_tail[1024];      /* last lines of its stderr */
};

/*
 * run argv[0] (a path) through lib/spawn, stdout to out_path (or /dev/null when NULL),
 * stderr captured; password (may be NULL) goes to the child as PGPASSWORD
 * so it never shows in the process list.  0 once the child has finished
 * (whatever its exit status), -errno if it could not be started.
 */
int pgl_child_run(char *const argv[], const char *out_path, const char *password,
		  struct pgl_child *ret, struct dut_error *err);

/*
 * A keyword=value conninfo for the server `c` is connected to, with dbname
 * replaced by `dbname` (NULL: unchanged) and without the password, which
 * goes to *ret_password (malloc'ed, NULL if none).
 */
int pgl_conninfo_for_db(PGconn *c, const char *dbname, char *buf, size_t len,
			char **ret_password);

/* The server's CPU time, when it runs on this host. */
struct pgl_server_cpu {
	long postmaster_pid;      /* 0: not measurable */
	char note[256];           /* why not */
};

/* Find the postmaster of `c` and check that it runs here (cwd = data_directory). */
void pgl_server_cpu_open(struct pgl_server_cpu *s, PGconn *c, const char *data_directory);
/* The server's processes at one moment: CPU (see restore.h) and I/O. */
struct pgl_server_sample {
	uint64_t cpu_ns;
	int io_r;                 /* 0, or why /proc/PID/io could not be read (-EACCES...) */
	struct pgl_proc_io io;
};
/* -errno if the CPU cannot be read. */
int pgl_server_sample_now(const struct pgl_server_cpu *s, struct pgl_server_sample *ret);

/* Every user table's exact row count, constraints and indexes, sorted. */
int pgl_restore_catalog_read(PGconn *c, struct pgl_restore_catalog *ret, struct dut_error *err);

/* Whether database `name` exists: 1, 0, or -errno. */
int pgl_database_exists(PGconn *c, const char *name, struct dut_error *err);
/* Create `name` from template0; with drop_first, DROP ... WITH (FORCE) before. */
int pgl_database_create(PGconn *c, const char *name, bool drop_first, struct dut_error *err);

/* --- the two commands (restore_run.c) --- */

struct pgl_restore_dump_opts {
	const char *source;        /* conninfo of the database to dump, or NULL */
	const char *server;        /* with generate: the server to generate on */
	const char *generate;      /* "oltp:SCALE" or "dss:SF", or NULL */
	const char *dbname;        /* with generate: the database to make */
	bool clean;                /* with generate: drop an existing one */
	const char *out;
	const char *bindir;
	const char *self;          /* this program, for generating */
};

int pgl_restore_dump(const struct pgl_restore_dump_opts *o, struct pgl_restore_sidecar *ret,
		     struct dut_error *err);

struct pgl_restore_run_opts {
	const char *dump, *conninfo, *dbname, *bindir, *dutfs_control;
	unsigned jobs;
	bool clean, verify;
};

/* On failure ret holds the phases done so far. */
int pgl_restore_run(const struct pgl_restore_run_opts *o, struct pgl_restore_result *ret,
		    struct dut_error *err);

#endif
