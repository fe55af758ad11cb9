/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Listing the PostgreSQL installations; see pgbin.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pgbin.h"

static bool is_program(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A major's directory name: digits only, 1 to 999. */
static unsigned major_of(const char *name)
{
	char *end;
	unsigned long v;

	if (name[0] < '1' || name[0] > '9')
		return 0;
	v = strtoul(name, &end, 10);
	return *end || v > 999 ? 0 : (unsigned)v;
}

int dut_pgbin_scan(const char *root, struct dut_pg_install *found, size_t max)
{
	DIR *d = opendir(root);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) && n < max) {
		unsigned major = major_of(de->d_name);
		char path[PATH_MAX];

		if (!major)
			continue;
		found[n].major = major;
		snprintf(path, sizeof(path), "%s/%s/bin/initdb", root, de->d_name);
		found[n].has_initdb = is_program(path);
		snprintf(path, sizeof(path), "%s/%s/bin/pg_ctl", root, de->d_name);
		found[n].has_pg_ctl = is_program(path);
		n++;
	}
	closedir(d);
	return (int)n;
}

int dut_pgbin_find(const char *root, unsigned want_major, char *bindir, size_t len,
		   unsigned *major, struct dut_error *err)
{
	struct dut_pg_install found[DUT_PG_MAX_FOUND];
	int n = dut_pgbin_scan(root, found, DUT_PG_MAX_FOUND), i;

	if (n < 0) {
		dut_error_set(err, "cannot list %s: %s", root, strerror(-n));
		return n;
	}
	if ((i = dut_pgbin_choose(found, (size_t)n, want_major, root, err)) < 0)
		return i;
	if (snprintf(bindir, len, "%s/%u/bin", root, found[i].major) >= (int)len) {
		dut_error_set(err, "%s/%u/bin: path too long", root, found[i].major);
		return -ENAMETOOLONG;
	}
	if (major)
		*major = found[i].major;
	return 0;
}
