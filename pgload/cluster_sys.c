/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system side of pgload clusters shared by cluster.c and standby.c:
 * running programs as postgres, ports, and file operations inside the
 * postgres-owned trees (data directories, WAL and tablespace directories,
 * socket directories).  Root never follows a name there that postgres could
 * have replaced: directories are opened without links (lib/fs_safe.h), files
 * are written with dut_write_file_at (a planted link is replaced, not
 * followed), ownership is changed with fchown on the opened fd, and trees
 * are removed fd-relative with dut_remove_tree*; children start through
 * lib/spawn.h.  Also the check of a
 * bindir both cluster init and a standby's base backup run.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "lib/memcg.h"
#include "lib/pgbin.h"
#include "lib/spawn.h"
#include "pgload/cluster.h"
#include "pgload/cluster_check.h"

/* Bound for the configuration files root reads and rewrites. */
#define CONF_MAX_BYTES (4u << 20)

bool pgl_sys_as_root(void)
{
	return geteuid() == 0;
}

int pgl_sys_postgres_ids(uid_t *uid, gid_t *gid)
{
	struct passwd *pw;

	if (!pgl_sys_as_root()) {
		*uid = (uid_t)-1;
		*gid = (gid_t)-1;
		return 0;
	}
	if (!(pw = getpwnam("postgres")))
		return -ENOENT;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

/* Who owns the files the server writes: postgres when we are root, else we. */
static uid_t server_uid(void)
{
	uid_t uid;
	gid_t gid;

	if (pgl_sys_postgres_ids(&uid, &gid) < 0)
		return (uid_t)-2;   /* no postgres: nothing matches */
	return uid == (uid_t)-1 ? geteuid() : uid;
}

/* In the child, before the exec: pg_ctl, the postmaster and every backend inherit the cgroup.
 * Silent: a failure comes back as the child's DUT_SPAWN_FAIL_SETUP, said by run_program. */
static int enter_memcg(void *ctx)
{
	struct dut_memcg cg = { .kind = DUT_MEMCG_V1 };

	snprintf(cg.dir, sizeof(cg.dir), "%s", (const char *)ctx);
	return dut_memcg_enter(&cg, 0);
}

/*
 * Run argv (as postgres when we are root) with stdout and stderr going to
 * out_fd.  Returns the exit status (0..255, 128 + signal), or -errno.
 */
static int run_program(char *const argv[], int out_fd, const char *memcg_dir)
{
	char *full[32];
	struct dut_spawn_opts o = {
		.search_path = true,
		.out = { .how = out_fd >= 0 ? DUT_SPAWN_FD : DUT_SPAWN_INHERIT, .fd = out_fd },
		.err = { .how = out_fd >= 0 ? DUT_SPAWN_STDOUT : DUT_SPAWN_INHERIT },
		.setup = memcg_dir ? enter_memcg : NULL,
		.setup_ctx = (void *)memcg_dir,
	};
	struct dut_child c;
	int r;

	if ((r = dut_spawn_argv_as(pgl_sys_as_root() ? "postgres" : NULL, argv, full, DUT_ARRAY_SIZE(full))) < 0)
		return r;
	if ((r = dut_spawn(full, &o, &c)) < 0 || (r = dut_child_wait(&c, 0, 0)) < 0)
		return r;
	/* why the child died before its program ran, where its output goes (the caller's
	 * message quotes its tail) */
	if (c.fail == DUT_SPAWN_FAIL_EXEC && out_fd >= 0)
		dprintf(out_fd, "cannot run %s: %s\n", full[0], strerror(c.fail_errno));
	if (c.fail == DUT_SPAWN_FAIL_SETUP && memcg_dir && out_fd >= 0)
		dprintf(out_fd, "cannot enter the memory cgroup %s: %s\n", memcg_dir, strerror(c.fail_errno));
	return dut_wait_code(c.status);
}

static void tail_fd(int fd, unsigned lines, char *buf, size_t len)
{
	char data[16384];
	ssize_t n = dut_read_tail(fd, data, sizeof(data));
	const char *p;
	unsigned seen = 0;

	if (n <= 0)
		return;
	p = data + n;
	if (p > data && p[-1] == '\n')
		p--;
	while (p > data) {
		if (p[-1] == '\n' && ++seen == lines)
			break;
		p--;
	}
	/* Keep the end if it does not fit: the last lines say why. */
	n = (ssize_t)strlen(p);
	if ((size_t)n >= len)
		p += (size_t)n - (len - 1);
	memcpy(buf, p, strlen(p) + 1);
}

/*
 * The last `lines` lines of a file, for error messages.  The server log is
 * in PGDATA: a link planted there must not show root's files in a message.
 */
void pgl_sys_file_tail(const char *path, unsigned lines, char *buf, size_t len)
{
	_cleanup_close_ int fd = dut_open_regular(path, DUT_ANY_OWNER, NULL);

	buf[0] = '\0';
	if (fd >= 0)
		tail_fd(fd, lines, buf, len);
}

/* Run argv, capturing its output in a temp file; on failure put the tail in err. */
int pgl_sys_run(char *const argv[], const char *what, struct dut_error *err)
{
	return pgl_sys_run_in(argv, what, NULL, err);
}

int pgl_sys_run_in(char *const argv[], const char *what, const char *memcg_dir, struct dut_error *err)
{
	char path[] = "/tmp/pgload-out-XXXXXX";
	_cleanup_close_ int fd = mkostemp(path, O_CLOEXEC);
	char tail[400] = ""; /* the end of the output: err->msg holds 512 bytes */
	int r;

	if (fd < 0)
		return -errno;
	unlink(path);          /* ours alone from here; the child writes to the fd */
	r = run_program(argv, fd, memcg_dir);
	if (r != 0) {
		tail_fd(fd, 20, tail, sizeof(tail));
		dut_error_set(err, "%s failed (%s %d):\n%s", what, r < 0 ? "error" : "exit status",
			      r < 0 ? -r : r, tail);
	}
	return r == 0 ? 0 : (r < 0 ? r : -EIO);
}

static int access_child(void *ctx)
{
	return access(ctx, R_OK | W_OK | X_OK) < 0 ? 1 : 0;
}

/* Can user postgres reach and write dir?  Checked in a child that drops to postgres. */
int pgl_sys_postgres_can_write(const char *dir)
{
	struct dut_spawn_ids ids = { 0 };   /* no supplementary groups */
	struct dut_spawn_opts o = { .ids = &ids };
	struct dut_child c;
	int r;

	if (!pgl_sys_as_root())
		return access(dir, R_OK | W_OK | X_OK) < 0 ? -errno : 0;
	if (pgl_sys_postgres_ids(&ids.uid, &ids.gid) < 0)
		return -ENOENT;
	if ((r = dut_spawn_call(access_child, (void *)dir, &o, &c)) < 0 || (r = dut_child_wait(&c, 0, 0)) < 0)
		return r;
	return c.fail == DUT_SPAWN_OK && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0 ? 0 : -EACCES;
}

/* --- directories and files in postgres-owned trees ------------------------ */

int pgl_sys_open_dir(const char *path)
{
	return dut_open_nofollow(path, O_RDONLY | O_DIRECTORY);
}

int pgl_sys_chown_postgres_fd(int fd)
{
	uid_t uid;
	gid_t gid;

	if (pgl_sys_postgres_ids(&uid, &gid) < 0)
		return -ENOENT;
	if (uid == (uid_t)-1)
		return 0;
	return fchown(fd, uid, gid) < 0 ? -errno : 0;
}

int pgl_sys_write_at(int dirfd, const char *name, const char *text, size_t len, mode_t mode)
{
	uid_t uid;
	gid_t gid;

	if (pgl_sys_postgres_ids(&uid, &gid) < 0)
		return -ENOENT;
	return dut_write_file_at(dirfd, name, text, len, mode, uid, gid);
}

int pgl_sys_read_at(int dirfd, const char *name, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return errno == ELOOP ? -ELOOP : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_uid != server_uid())
		return -EPERM;
	if ((uint64_t)st.st_size > CONF_MAX_BYTES)
		return -EFBIG;
	return dut_read_fd_alloc(fd, CONF_MAX_BYTES, 0, ret, ret_len);
}

int pgl_sys_append_at(int dirfd, const char *name, const char *text, bool must_exist)
{
	_cleanup_free_ char *old = NULL, *both = NULL;
	size_t olen = 0, tlen = strlen(text);
	int r = pgl_sys_read_at(dirfd, name, &old, &olen);

	if (r == -ENOENT && !must_exist)
		olen = 0;
	else if (r < 0)
		return r;
	if (!(both = malloc(olen + tlen + 1)))
		return -ENOMEM;
	if (olen)
		memcpy(both, old, olen);
	memcpy(both + olen, text, tlen + 1);
	return pgl_sys_write_at(dirfd, name, both, olen + tlen, 0600);
}

int pgl_sys_empty_dir_at(int fd, const char *prefix)
{
	int dfd = dup(fd);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;
	int r = 0, q;

	if (dfd < 0)
		return -errno;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if ((q = dut_remove_tree_at(fd, e->d_name)) < 0 && r == 0)
			r = q;
	}
	return r;
}

int pgl_sys_remove_tree(const char *path)
{
	return dut_remove_tree(path);
}

/* 1 empty, 0 not empty, -errno (-ENOENT missing, -ENOTDIR, -ELOOP a link). */
int pgl_sys_dir_empty(const char *path)
{
	int fd = pgl_sys_open_dir(path);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;

	if (fd < 0)
		return fd;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			return 0;
	return 1;
}

int pgl_sys_absolute_path(const char *in, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (in[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return -errno;
	return pgl_path_normalize(in[0] == '/' ? NULL : cwd, in, out, len);
}

/* --- ports ---------------------------------------------------------------- */

bool pgl_sys_port_free(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	_cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return false;
	return bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
}

/*
 * A port free on 127.0.0.1.  Without a TCP listener the server still needs a
 * number for its socket name (.s.PGSQL.PORT); a free TCP port keeps
 * --listen-tcp and later starts simple.
 */
int pgl_sys_pick_port(void)
{
	unsigned start = (unsigned)(getpid() * 7919u + (unsigned)time(NULL)) % 20000u;

	for (unsigned i = 0; i < 20000; i++) {
		int port = 20000 + (int)((start + i) % 20000u);

		if (pgl_sys_port_free(port))
			return port;
	}
	return -EADDRINUSE;
}

/* bindir/initdb: an executable regular file owned by root (or by us when not root). */
int pgl_cluster_check_bindir(const char *bindir, struct dut_error *err)
{
	char initdb[PATH_MAX + 16];
	struct stat st;

	if (!pgl_path_is_normal(bindir)) {
		dut_error_set(err, "bindir %s: give an absolute path without . or .. components", bindir);
		return -EINVAL;
	}
	snprintf(initdb, sizeof(initdb), "%s/initdb", bindir);
	if (stat(initdb, &st) < 0 || access(initdb, X_OK) < 0) {
		dut_error_set(err, "%s: %s (give the PostgreSQL binaries with --bindir)", initdb,
			      strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		dut_error_set(err, "%s is not a regular file owned by root and writable only by it: "
			      "refusing to run PostgreSQL from %s", initdb, bindir);
		return -EPERM;
	}
	/* and, as root, the server programs and the directories above them too */
	return dut_pgbin_check_dir(bindir, err);
}
