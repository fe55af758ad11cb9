/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cached PostgreSQL build a configuration's block sizes name; see runner_pgbuild.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/pgbin.h"
#include "tools/run/runner_pgbuild.h"

void run_pg_build_eta(unsigned major, char *buf, size_t len)
{
	bool here = false;
	unsigned est = dut_pg_build_estimate(dut_pg_cache_root(), major, &here);

	snprintf(buf, len, here ? "about %u min on this machine" : "about %u min on a 2-core machine; no build here was timed yet",
		 (est + 59) / 60);
}

int run_pg_build_resolve(struct runner *R, const struct dut_config *cfg, bool only_cached, struct run_cfg_pg *pg,
			 struct dut_error *err)
{
	const char *cache = dut_pg_cache_root();
	unsigned major = cfg->pg_major;
	unsigned bs = cfg->pg_block_kb ? cfg->pg_block_kb : DUT_PG_DEFAULT_BLOCK_KB;
	unsigned wal = cfg->pg_wal_block_kb ? cfg->pg_wal_block_kb : DUT_PG_DEFAULT_BLOCK_KB;
	char key[64], dir[PATH_MAX], cmd[160];
	struct dut_pg_build b;
	int r;

	if (bs == DUT_PG_DEFAULT_BLOCK_KB && wal == DUT_PG_DEFAULT_BLOCK_KB && !only_cached) {
		/* Debian's own packages have 8 kB blocks: the installed major when there is one */
		char bindir[PATH_MAX];

		if (dut_pgbin_find(dut_pgbin_root(), major, bindir, sizeof(bindir), &major, NULL) == 0)
			return 2;
		major = cfg->pg_major;
	}
	if (!major) {
		/* the major of the installed server the other configurations run */
		char bindir[PATH_MAX];

		if ((r = dut_pgbin_find(dut_pgbin_root(), 0, bindir, sizeof(bindir), &major, err)) < 0)
			return r;
	}
	if ((r = dut_pg_build_key(major, bs, wal, key, sizeof(key))) < 0)
		return r;
	if (snprintf(dir, sizeof(dir), "%s/%s", cache, key) >= (int)sizeof(dir) - 8)
		return -ENAMETOOLONG;
	snprintf(cmd, sizeof(cmd), "dutlab pg build --major %u --block-size %ukB%s", major, bs,
		 wal == DUT_PG_DEFAULT_BLOCK_KB ? "" : " --wal-block-size");
	if (wal != DUT_PG_DEFAULT_BLOCK_KB)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %ukB", wal);
	pg->major = major;
	pg->block_kb = bs;
	pg->wal_block_kb = wal;
	run_pathf(pg->bindir, sizeof(pg->bindir), "%s/bin", dir);
	r = dut_pg_build_read(dir, &b, err);
	if (r == -ENOENT && only_cached)
		return -ENOENT;
	if (r == -ENOENT) {
		char eta[96];

		run_pg_build_eta(major, eta, sizeof(eta));
		if (R->o->dry_run) {
			snprintf(pg->version, sizeof(pg->version), "not built");
			runner_say(R, "configuration %s: PostgreSQL %u with %u kB blocks, %u kB WAL blocks is not "
				   "built in %s: `%s` makes it (%s)", R->st->cfgs[cfg->index].dir, major, bs,
				   wal, dir, cmd, eta);
			return 1;
		}
		dut_error_set(err, "PostgreSQL %u with %u kB blocks and %u kB WAL blocks is not built (%s has "
			      "no %s): run `%s` first (%s; dutlab run --dry-run lists what is missing)", major, bs,
			      wal, dir, DUT_PG_BUILD_CONF, cmd, eta);
		return -ENOENT;
	}
	if (r < 0)
		return r;
	if (b.major != major || b.block_kb != bs || b.wal_block_kb != wal) {
		dut_error_set(err, "%s/%s records PostgreSQL %u with %u kB blocks and %u kB WAL blocks, not what "
			      "its name says (%u, %u kB, %u kB): remove %s and run `%s`", dir, DUT_PG_BUILD_CONF,
			      b.major, b.block_kb, b.wal_block_kb, major, bs, wal, dir, cmd);
		return -EINVAL;
	}
	if (R->o->dry_run)
		runner_say(R, "configuration %s: PostgreSQL %u with %u kB blocks, %u kB WAL blocks: cached in %s "
			   "(%s from %s)", R->st->cfgs[cfg->index].dir, major, bs, wal, dir, b.version[0] ? b.version : "?",
			   b.suite[0] ? b.suite : "?");
	return 0;
}
