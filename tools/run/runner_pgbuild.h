/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A configuration that asks for block sizes ([postgres] or [matrix]
 * block_size, wal_block_size) runs a build of dutlab pg build: the one in
 * dut_pg_cache_root()/<key> (lib/pgbin.h).  The runner does not build: a
 * missing build is refused with the command that makes it and how long that
 * takes (--dry-run says so and goes on).
 */
#ifndef DUT_RUN_RUNNER_PGBUILD_H
#define DUT_RUN_RUNNER_PGBUILD_H

#include "tools/run/runner_priv.h"

/* cfg asks for block sizes.  0: pg->bindir, major, block sizes set from the
 * cached build (its programs are then checked as any bindir's); 1: --dry-run
 * and not built (pg filled in as far as known, version "not built", said on
 * stderr); -ENOENT not built, -EINVAL a build whose record disagrees with
 * its name, -errno: err says what to do; 2: 8 kB blocks and WAL blocks, which
 * the installed major has (Debian builds with them): resolve it as usual.
 * only_cached (a major that is not installed, no block sizes asked for):
 * the build <major>-bs8k if it is there, else -ENOENT with err untouched. */
int run_pg_build_resolve(struct runner *R, const struct dut_config *cfg, bool only_cached, struct run_cfg_pg *pg,
			 struct dut_error *err);
/* How long `dutlab pg build --major major` takes, as the user is told:
 * "about N min on this machine" from the cached builds' times, else the
 * project's measured figure, saying so. */
void run_pg_build_eta(unsigned major, char *buf, size_t len);

#endif
