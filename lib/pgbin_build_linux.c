/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the cache of PostgreSQL builds; see pgbin.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/pgbin.h"

const char *dut_pg_cache_root(void)
{
	const char *e = getenv("DUT_PG_CACHE");

	return e && e[0] == '/' ? e : DUT_PG_CACHE;
}

/* A build's record is a few lines: what is past this is not read (as before). */
#define BUILD_CONF_MAX 4095

/* The first BUILD_CONF_MAX bytes of path, not through a link, through lib's one read loop. */
static int read_conf(const char *path, char **ret_text)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	return dut_read_fd_alloc(fd, BUILD_CONF_MAX, DUT_READ_CUT, ret_text, NULL);
}

int dut_pg_build_read(const char *dir, struct dut_pg_build *b, struct dut_error *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	int r, w = snprintf(path, sizeof(path), "%s/%s", dir, DUT_PG_BUILD_CONF);

	if (w < 0 || (size_t)w >= sizeof(path))
		return -ENAMETOOLONG;
	r = read_conf(path, &text);
	if (r == -ENOENT || r == -ENOTDIR)
		return -ENOENT;
	if (r < 0) {
		dut_error_set(err, "%s: %s", path, strerror(-r));
		return r;
	}
	if (dut_pg_build_parse(text, b) < 0) {
		dut_error_set(err, "%s does not record a major and block sizes (major=, block_size_kb=, "
			      "wal_block_size_kb=): not a build of dutlab pg build; remove %s and build again",
			      path, dir);
		return -EINVAL;
	}
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int dut_pg_build_of_bindir(const char *bindir, struct dut_pg_build *b, struct dut_error *err)
{
	char dir[PATH_MAX], *slash;

	if (snprintf(dir, sizeof(dir), "%s", bindir) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	while ((slash = strrchr(dir, '/')) && slash[1] == '\0' && slash != dir)
		*slash = '\0';
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		return -ENOENT;
	*slash = '\0';
	return dut_pg_build_read(dir, b, err);
}

unsigned dut_pg_build_estimate(const char *cache, unsigned major, bool *ret_timed_here)
{
	unsigned mine[64], all[64];
	size_t nmine = 0, nall = 0;
	DIR *d = opendir(cache);
	struct dirent *de;
	unsigned est;

	while (d && (de = readdir(d)) && nall < 64) {
		char dir[PATH_MAX];
		struct dut_pg_build b;

		if (de->d_name[0] == '.' || snprintf(dir, sizeof(dir), "%s/%s", cache, de->d_name) >= (int)sizeof(dir))
			continue;
		if (dut_pg_build_read(dir, &b, NULL) < 0 || !b.build_seconds)
			continue;
		all[nall++] = b.build_seconds;
		if (b.major == major)
			mine[nmine++] = b.build_seconds;
	}
	if (d)
		closedir(d);
	if (nmine) {
		qsort(mine, nmine, sizeof(*mine), cmp_unsigned);
		est = mine[nmine / 2];
	} else if (nall) {
		qsort(all, nall, sizeof(*all), cmp_unsigned);
		est = all[nall / 2];
	} else
		est = DUT_PG_BUILD_SECONDS_GUESS;
	if (ret_timed_here)
		*ret_timed_here = nall > 0;
	return est;
}
