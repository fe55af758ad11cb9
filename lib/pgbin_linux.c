/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Listing the PostgreSQL installations; see pgbin.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fs_safe.h"
#include "lib/pgbin.h"
#include "lib/spawn.h"

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

static int by_major(const void *a, const void *b)
{
	const struct dut_pg_install *x = a, *y = b;

	return (x->major > y->major) - (x->major < y->major);
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
	/* in order, for messages ("found: 13, 15, 16 (no pg_ctl)") */
	qsort(found, n, sizeof(*found), by_major);
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

const char *dut_pgbin_root(void)
{
	const char *r = getenv("DUT_PG_ROOT");

	return r && r[0] == '/' ? r : DUT_PG_ROOT;
}

/*
 * Root runs what path resolves to, and what it resolves to is what root, and
 * nobody else, could have put there (dut_path_trusted).  0, or -EPERM with
 * err naming the untrusted part.
 */
static int root_trusts(const char *path, struct dut_error *err)
{
	char bad[PATH_MAX];
	const char *why;
	int r = dut_path_trusted(path, bad, sizeof(bad), &why);

	if (r == -EPERM)
		dut_error_set(err, "%s%s%s is %s: refusing to run it as root (PostgreSQL's programs must "
			      "be root's, as Debian installs them in %s)", path, strcmp(bad, path) ? ": " : "",
			      strcmp(bad, path) ? bad : "", why, DUT_PG_ROOT);
	else if (r < 0)
		dut_error_set(err, "%s: %s: %s", path, bad, strerror(-r));
	return r;
}

int dut_pgbin_check_progs(const char *bindir, const char *const progs[], struct dut_error *err)
{
	char path[PATH_MAX];
	int r;

	for (size_t i = 0; progs[i]; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", bindir, progs[i]) >= (int)sizeof(path)) {
			dut_error_set(err, "bindir %s: path too long", bindir);
			return -ENAMETOOLONG;
		}
		if (!is_program(path)) {
			dut_error_set(err, "%s: not an executable file (give the PostgreSQL installation "
				      "with --bindir)", path);
			return -ENOENT;
		}
		if (geteuid() == 0 && (r = root_trusts(path, err)) < 0)
			return r;
	}
	return 0;
}

int dut_pgbin_check_dir(const char *bindir, struct dut_error *err)
{
	static const char *const progs[] = { "initdb", "pg_ctl", "postgres", NULL };
	char missing[64] = "", path[PATH_MAX];
	struct stat st;
	size_t at = 0;

	if (bindir[0] != '/') {
		dut_error_set(err, "bindir %s: expected an absolute path", bindir);
		return -EINVAL;
	}
	if (stat(bindir, &st) < 0) {
		dut_error_set(err, "bindir %s: %s", bindir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		dut_error_set(err, "bindir %s: not a directory", bindir);
		return -ENOTDIR;
	}
	for (size_t i = 0; progs[i]; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", bindir, progs[i]) >= (int)sizeof(path)) {
			dut_error_set(err, "bindir %s: path too long", bindir);
			return -ENAMETOOLONG;
		}
		if (!is_program(path))
			at += (size_t)snprintf(missing + at, sizeof(missing) - at, "%s%s", at ? ", " : "", progs[i]);
	}
	if (at) {
		dut_error_set(err, "bindir %s has no %s: expected the PostgreSQL server programs (initdb, "
			      "pg_ctl, postgres), as in %s/<major>/bin", bindir, missing, DUT_PG_ROOT);
		return -ENOENT;
	}
	/* pgload runs them as root's child: root's own, as pgload cluster init demands */
	return dut_pgbin_check_progs(bindir, progs, err);
}

int dut_pgbin_version(const char *bindir, char *buf, size_t len, unsigned *ret_major, struct dut_error *err)
{
	char prog[PATH_MAX], out[256];
	char *argv[] = { prog, "--version", NULL };
	struct dut_capture cap = { .buf = out, .cap = sizeof(out) };
	/* stdin /dev/null, stdout read (its first 255 bytes kept), stderr ours */
	const struct dut_spawn_opts o = {
		.out = { .how = DUT_SPAWN_CAPTURE }, .err = { .how = DUT_SPAWN_INHERIT }, .capture = &cap,
	};
	struct dut_child c;
	int status, r;
	unsigned major;

	snprintf(prog, sizeof(prog), "%s/postgres", bindir);
	if ((r = dut_spawn(argv, &o, &c)) < 0) {
		dut_error_set(err, "cannot run %s --version: %s", prog, strerror(-r));
		return r;
	}
	r = dut_child_wait(&c, 0, 0);
	if (r == 0 && c.fail != DUT_SPAWN_OK)
		r = -(c.fail_errno ? c.fail_errno : EIO);
	if (r < 0) {
		dut_error_set(err, "cannot run %s --version: %s", prog, strerror(-r));
		return r;
	}
	status = c.status;
	out[strcspn(out, "\n")] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || dut_pgbin_parse_version(out, &major) < 0) {
		dut_error_set(err, "%s --version said \"%.120s\"%s: expected \"postgres (PostgreSQL) "
			      "<version>\"", prog, out, WIFEXITED(status) && !WEXITSTATUS(status) ? "" : " and failed");
		return -EINVAL;
	}
	snprintf(buf, len, "%s", out);
	*ret_major = major;
	return 0;
}

int dut_pgbin_cluster_major(const char *pgdata, unsigned *ret_major, struct dut_error *err)
{
	char path[PATH_MAX], text[64];
	unsigned major;
	int fd, r;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/PG_VERSION", pgdata) >= (int)sizeof(path)) {
		dut_error_set(err, "%s: path too long", pgdata);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		dut_error_set(err, "cannot read %s: %s (is %s a PostgreSQL data directory?)", path, strerror(-r),
			      pgdata);
		return r;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	if (n <= 0 || dut_pgbin_parse_pg_version(text, &major) < 0) {
		dut_error_set(err, "%s: expected a PostgreSQL major such as 15, found \"%.20s\"", path, text);
		return -EINVAL;
	}
	*ret_major = major;
	return 0;
}
