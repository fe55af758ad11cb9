/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which PostgreSQL installation to use.  Debian (and the PostgreSQL
 * project's apt repository) installs each major's server programs in
 * /usr/lib/postgresql/<major>/bin; several majors can sit side by side.
 * The default is the newest major that has both initdb and pg_ctl; a user
 * asks for a major (version = 17) or gives a bindir.
 *
 * dut_pgbin_choose() is pure: it picks from a list of what was found.
 * dut_pgbin_scan() and dut_pgbin_find() read the directory.
 *
 * The root is DUT_PG_ROOT unless the environment variable DUT_PG_ROOT names
 * another absolute directory (dut_pgbin_root()): the tests' seam, a fake
 * tree with <major>/bin/initdb, pg_ctl and postgres stubs.
 *
 * Settings that exist only in some majors (io_method from 18, ...) are in
 * a table (pgbin_settings.c, pure): dut_pg_setting_check().
 */
#ifndef DUT_PGBIN_H
#define DUT_PGBIN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

#define DUT_PG_ROOT "/usr/lib/postgresql"
#define DUT_PG_MIN_MAJOR 13   /* the oldest major dutlab supports */
#define DUT_PG_MAX_FOUND 32

struct dut_pg_install {
	unsigned major;        /* from the directory name: 13, 15, 17 */
	bool has_initdb, has_pg_ctl;
};

/* The index into found[] of the installation to use for want_major (0 =
 * the newest usable), or -ENOENT with err saying what was found and what
 * to install.  Majors below DUT_PG_MIN_MAJOR are never chosen. */
int dut_pgbin_choose(const struct dut_pg_install *found, size_t n, unsigned want_major,
		     const char *root, struct dut_error *err);

/* The installations under root (normally DUT_PG_ROOT): n found, or -errno. */
int dut_pgbin_scan(const char *root, struct dut_pg_install *found, size_t max);

/* root/<major>/bin for want_major (0: newest usable) into bindir, its
 * major into *major.  0, or -errno with err set. */
int dut_pgbin_find(const char *root, unsigned want_major, char *bindir, size_t len,
		   unsigned *major, struct dut_error *err);

/* $DUT_PG_ROOT when it is an absolute path, else DUT_PG_ROOT. */
const char *dut_pgbin_root(void);

/* The major of a `postgres --version` line ("postgres (PostgreSQL) 15.14
 * (Debian 15.14-0+deb12u1)" -> 15, "... 9.6.24" -> 9) and of a data
 * directory's PG_VERSION file ("15\n").  0 or -EINVAL.  Pure. */
int dut_pgbin_parse_version(const char *text, unsigned *ret_major);
int dut_pgbin_parse_pg_version(const char *text, unsigned *ret_major);

/* bindir has initdb, pg_ctl and postgres, executable regular files (owned
 * by root and writable only by it when we are root, as pgload demands).
 * 0, or -errno with err naming what is missing. */
int dut_pgbin_check_dir(const char *bindir, struct dut_error *err);
/* Each of progs (NULL-terminated names) is an executable file in bindir and,
 * when we are root, it (links resolved) and every directory above it are
 * root's and writable by no one else (a sticky directory aside): what root
 * runs from a --bindir is what only root could have put there.  0, or
 * -ENOENT / -EPERM with err naming the program and what is wrong. */
int dut_pgbin_check_progs(const char *bindir, const char *const progs[], struct dut_error *err);
/* The first line of `bindir/postgres --version` into buf and its major.
 * 0, or -errno with err. */
int dut_pgbin_version(const char *bindir, char *buf, size_t len, unsigned *ret_major,
		      struct dut_error *err);
/* The major of the cluster in pgdata (its PG_VERSION).  0, or -errno with err. */
int dut_pgbin_cluster_major(const char *pgdata, unsigned *ret_major, struct dut_error *err);

/* ---- settings that exist only from or until a major (pgbin_settings.c; pure) ---- */

struct dut_pg_setting_rule {
	const char *name;               /* lower case, as PostgreSQL lists it */
	unsigned since;                 /* the first major that has it; 0: every supported one */
	unsigned until;                 /* the last major that has it; 0: still there */
	const char *const *values;      /* NULL-terminated: the rule is about these values only */
	const char *note;               /* what to use instead, or NULL */
};

extern const struct dut_pg_setting_rule dut_pg_setting_rules[];
extern const size_t dut_pg_nsetting_rules;

/* The rule that major breaks for name = value (names and values compare
 * case-insensitively, value may be NULL: the setting itself), or NULL when
 * major has it (or the table does not know it: PostgreSQL then says). */
const struct dut_pg_setting_rule *dut_pg_setting_check(const char *name, const char *value, unsigned major);
/* "io_method needs PostgreSQL 18", "stats_temp_directory was removed in
 * PostgreSQL 15 (...)", "wal_compression = lz4 needs PostgreSQL 15" into buf. */
void dut_pg_setting_reason(const struct dut_pg_setting_rule *r, const char *name, const char *value,
			   char *buf, size_t len);

/* ---- builds of other block sizes and majors (pgbin_build.c pure, pgbin_build_linux.c) ----
 *
 * dutlab pg build (tools/pg/dutlab-pg-build) builds PostgreSQL from Debian's
 * source package into <cache>/<key>: key "15-bs16k" for major 15 with 16 kB
 * blocks, "15-bs16k-wal32k" when the WAL block is not 8 kB.  <cache> is
 * $DUT_PG_CACHE when it is an absolute path, else DUT_PG_CACHE.  Each build
 * records what it is in <key>/DUT_PG_BUILD_CONF (key=value lines).
 */
#define DUT_PG_CACHE "/var/lib/dutlab/pg"
#define DUT_PG_BUILD_CONF "dutlab-build.conf"
#define DUT_PG_DEFAULT_BLOCK_KB 8u     /* BLCKSZ and XLOG_BLCKSZ of every Debian package */
/*
 * How long a build takes when no cached build on this machine says: the
 * slowest of the four measured on a 2-core machine on 2026-12-07 (15 with
 * 4, 16 and 32 kB blocks: 420, 878 and 437 s; 18: 435 s; the 878 s one
 * beside a CI run).  The majors did not differ beyond that spread.
 */
#define DUT_PG_BUILD_SECONDS_GUESS 900u

struct dut_pg_build {
	unsigned major, block_kb, wal_block_kb;
	unsigned build_seconds;     /* 0: not recorded */
	char version[64];           /* the Debian source version: "15.18-0+deb12u1" */
	char suite[32];             /* "bookworm" */
	char configure[1024];       /* the configure options */
};

/* A block size as written ("16kB", "16k", "16": kB) into *kb; wal: the WAL
 * block (1..64 kB) rather than the data block (1..32 kB).  0, or -EINVAL
 * with msg saying what PostgreSQL accepts.  Pure. */
int dut_pg_parse_block_size(const char *text, bool wal, unsigned *kb, char *msg, size_t len);
/* The cache key for major and block sizes (0: DUT_PG_DEFAULT_BLOCK_KB) into
 * buf.  0, or -ENAMETOOLONG.  Pure. */
int dut_pg_build_key(unsigned major, unsigned block_kb, unsigned wal_block_kb, char *buf, size_t len);
/* A DUT_PG_BUILD_CONF text into b.  0, or -EINVAL when major or a block size
 * is missing or invalid.  Pure. */
int dut_pg_build_parse(const char *text, struct dut_pg_build *b);
/* $DUT_PG_CACHE when it is an absolute path, else DUT_PG_CACHE. */
const char *dut_pg_cache_root(void);
/* The build in dir (<cache>/<key>): its DUT_PG_BUILD_CONF into b.  0,
 * -ENOENT (not built), or -errno/-EINVAL with err. */
int dut_pg_build_read(const char *dir, struct dut_pg_build *b, struct dut_error *err);
/* The build a bindir belongs to (<cache>/<key>/bin: the record beside bin/),
 * as dut_pg_build_read; -ENOENT also for a bindir with no parent. */
int dut_pg_build_of_bindir(const char *bindir, struct dut_pg_build *b, struct dut_error *err);
/* The seconds a build of major is expected to take, from the times the
 * cached builds recorded: the median of major's builds if any, else of all
 * builds, else DUT_PG_BUILD_SECONDS_GUESS.  *ret_timed_here (may be NULL):
 * whether the figure comes from builds on this machine. */
unsigned dut_pg_build_estimate(const char *cache, unsigned major, bool *ret_timed_here);

#endif
