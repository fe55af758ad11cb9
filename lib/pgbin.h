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

#endif
