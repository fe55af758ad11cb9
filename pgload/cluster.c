/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cluster life cycle: pg_ctl start/stop as user postgres, its memory budget, clean-up.
 * initdb and the files it needs: cluster_init.c; the state file: cluster_state.c. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/fs_safe.h"
#include "lib/pgbin.h"
#include "lib/memcg.h"
#include "lib/units.h"
#include "pgload/cluster.h"
#include "pgload/cluster_check.h"
#include "pgload/cluster_priv.h"
#include "pgload/pgconn.h"


volatile int pgl_cluster_interrupted;



int pgl_tablespace_parse(const char *spec, struct pgl_tablespace *ret, struct dut_error *err)
{
	const char *eq = strchr(spec, '=');
	size_t nlen = eq ? (size_t)(eq - spec) : 0;

	if (!eq || nlen == 0 || !eq[1]) {
		dut_error_set(err, "bad tablespace \"%s\": expected NAME=DIR", spec);
		return -EINVAL;
	}
	if (nlen >= sizeof(ret->name)) {
		dut_error_set(err, "tablespace name in \"%s\" is too long", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < nlen; i++) {
		char ch = spec[i];

		if (!((ch >= 'a' && ch <= 'z') || ch == '_' || (i && ch >= '0' && ch <= '9'))) {
			dut_error_set(err, "bad tablespace name \"%.*s\": use lower-case letters, digits and _",
				      (int)nlen, spec);
			return -EINVAL;
		}
	}
	if (nlen >= 3 && strncmp(spec, "pg_", 3) == 0) {
		dut_error_set(err, "tablespace name \"%.*s\": names starting with pg_ are reserved",
			      (int)nlen, spec);
		return -EINVAL;
	}
	memcpy(ret->name, spec, nlen);
	ret->name[nlen] = '\0';
	if (pgl_sys_absolute_path(eq + 1, ret->location, sizeof(ret->location)) < 0) {
		dut_error_set(err, "tablespace directory \"%s\": path too long", eq + 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* --- state file --------------------------------------------------------- */


/* --- life cycle --------------------------------------------------------- */

/*
 * A socket directory only the server's user controls.  One that is gone
 * (/tmp was cleaned) or that someone else made under the recorded name is
 * replaced by a new one, never used.
 */
static int ensure_socket_dir(struct pgl_cluster *c)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	uid_t uid;
	gid_t gid;
	int r;

	if ((r = pgl_sys_postgres_ids(&uid, &gid)) < 0)
		return r;
	if (uid == (uid_t)-1)
		uid = geteuid();
	if (c->socket_dir[0] && pgl_socket_dir_is_valid(c->socket_dir) &&
	    (fd = pgl_sys_open_dir(c->socket_dir)) >= 0 && fstat(fd, &st) == 0 &&
	    st.st_uid == uid && (st.st_mode & 07777) == 0700)
		return 0;
	if (fd >= 0)
		close(fd);
	snprintf(c->socket_dir, sizeof(c->socket_dir), "/tmp/pgload-XXXXXX");
	if (!mkdtemp(c->socket_dir))
		return -errno;
	if ((fd = pgl_sys_open_dir(c->socket_dir)) < 0)
		return fd;
	if (fchmod(fd, 0700) < 0)
		return -errno;
	return pgl_sys_chown_postgres_fd(fd);
}

int pgl_cluster_running(const struct pgl_cluster *c, long *ret_pid)
{
	char path[PATH_MAX + 32];
	_cleanup_fclose_ FILE *f = NULL;
	long pid;
	int fd;

	snprintf(path, sizeof(path), "%s/postmaster.pid", c->pgdata);
	if ((fd = dut_open_regular(path, DUT_ANY_OWNER, NULL)) < 0)
		return 0;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	if (ret_pid)
		*ret_pid = pid;
	return 1;
}

/* --- memory budget ------------------------------------------------------ */

/* The cgroup the state file names (its directory was checked on load). */
static void memcg_of(const struct pgl_cluster *c, struct dut_memcg *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->kind = DUT_MEMCG_V1;        /* both hierarchies list members in cgroup.procs */
	snprintf(cg->dir, sizeof(cg->dir), "%s", c->memcg_dir);
	cg->limit_bytes = c->memory_bytes;
}

/* Remove the budget's cgroup (none, or already gone: nothing to do). */
static int memcg_release(const struct pgl_cluster *c, struct dut_error *err)
{
	struct dut_memcg cg;
	int r;

	if (!c->memcg_dir[0])
		return 0;
	memcg_of(c, &cg);
	if ((r = dut_memcg_remove(&cg)) < 0)
		dut_error_set(err, "cannot remove the memory cgroup %s: %s (remove it with rmdir once "
			      "its processes are gone)", c->memcg_dir, strerror(-r));
	return r;
}

int pgl_cluster_memory(const struct pgl_cluster *c, uint64_t *ret_current, uint64_t *ret_peak)
{
	struct dut_error err;
	struct dut_memcg cg;

	if (!c->memory_bytes || !c->memcg_dir[0] || dut_memcg_open(c->memcg_dir, &cg, &err) < 0)
		return 0;
	return dut_memcg_usage(&cg, ret_current, ret_peak) < 0 ? 0 : 1;
}

/*
 * Pick a new cgroup for this start and record it (c->memcg_dir) before it
 * is made; one left by an earlier start is removed first.
 */
static int memcg_prepare(struct pgl_cluster *c, struct dut_memcg *cg, struct dut_error *err)
{
	char name[8 + 16 + 1] = "pgload-";
	int r;

	if ((r = memcg_release(c, err)) < 0)
		return r;
	c->memcg_dir[0] = '\0';
	if (!c->memory_bytes)
		return 0;
	if ((r = pgl_cluster_random_hex(name + 7, 16)) < 0) {
		dut_error_set(err, "cannot name the memory cgroup: no random numbers");
		return r;
	}
	if ((r = dut_memcg_locate(name, c->memory_bytes, cg, err)) < 0)
		return r;
	snprintf(c->memcg_dir, sizeof(c->memcg_dir), "%s", cg->dir);
	return 0;
}

/*
 * After a failed or interrupted start: stop what may have started and
 * remove the cgroup.  Only the server was put in it, so a process still
 * there is a postmaster that never got as far as postmaster.pid.
 */
static void start_undo(struct pgl_cluster *c)
{
	struct dut_error e2;
	struct dut_memcg cg;

	if (pgl_cluster_running(c, NULL))
		pgl_cluster_stop(c, true, &e2);
	if (c->memcg_dir[0]) {
		memcg_of(c, &cg);
		for (int i = 0; i < 50 && dut_memcg_kill(&cg, SIGKILL) > 0; i++)
			usleep(20 * 1000);
		memcg_release(c, &e2);
	}
}

int pgl_cluster_start(struct pgl_cluster *c, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16], opts[PATH_MAX + 128], logf[PATH_MAX + 32];
	char tail[4096];
	struct dut_memcg cg;
	int r;

	if (pgl_cluster_running(c, NULL)) {
		dut_error_set(err, "the server of %s is already running", c->pgdata);
		return -EALREADY;
	}
	if ((r = ensure_socket_dir(c)) < 0) {
		dut_error_set(err, "cannot create a socket directory in /tmp: %s", dut_fs_safe_strerror(r));
		return r;
	}
	if (!pgl_sys_port_free(c->port)) {
		int p = pgl_sys_pick_port();

		if (p < 0) {
			dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
			return p;
		}
		c->port = p;
	}
	if ((r = memcg_prepare(c, &cg, err)) < 0)
		return r;
	/* the cgroup is named here before it exists: destroy finds it after any interruption */
	if ((r = pgl_cluster_save(c)) < 0) {
		dut_error_set(err, "cannot write %s/%s: %s", c->pgdata, PGL_STATE_FILE, dut_fs_safe_strerror(r));
		return r;
	}
	if (c->memcg_dir[0] && (r = dut_memcg_make(&cg, err)) < 0)
		return r;
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	/* pg_ctl hands -o to a shell: socket_dir is /tmp/pgload-XXXXXX (checked), '' is empty. */
	snprintf(opts, sizeof(opts), "-p %d -k %s -c listen_addresses=%s", c->port, c->socket_dir,
		 c->listen_tcp ? "127.0.0.1" : "''");
	snprintf(logf, sizeof(logf), "%s/%s", c->pgdata, PGL_SERVER_LOG);
	{
		char *argv[] = { pg_ctl, "-D", c->pgdata, "-l", logf, "-w", "-t", "120", "-o", opts,
				 "start", NULL };

		r = pgl_sys_run_in(argv, "pg_ctl start", c->memcg_dir[0] ? c->memcg_dir : NULL, err);
	}
	if (r < 0) {
		char pgctl_msg[sizeof(err->msg)];

		snprintf(pgctl_msg, sizeof(pgctl_msg), "%s", err->msg);
		pgl_sys_file_tail(logf, 20, tail, sizeof(tail));
		start_undo(c);
		dut_error_set(err, "the server did not start.\n%s\nlast lines of %s:\n%s", pgctl_msg,
			      logf, tail);
	} else if (pgl_cluster_interrupted) {
		start_undo(c);
		dut_error_set(err, "interrupted: the server of %s was stopped again%s", c->pgdata,
			      c->memcg_dir[0] ? " and its memory cgroup removed" : "");
		r = -EINTR;
	} else if (c->listen_tcp) {
		/* Now that the port is ours: a new TCP password, valid for this port only. */
		char msg[sizeof(err->msg)] = "";

		if ((r = pgl_cluster_tcp_password_new(c, err)) < 0)
			snprintf(msg, sizeof(msg), "%s", err->msg);
		else if ((r = pgl_cluster_save(c)) < 0)
			snprintf(msg, sizeof(msg), "cannot write the state file %s: %s", PGL_STATE_FILE,
				 dut_fs_safe_strerror(r));
		if (r < 0) {
			start_undo(c);
			dut_error_set(err, "the server started, but its TCP password could not be renewed "
				      "(%s): stopped it again", msg);
		}
	}
	return r;
}

int pgl_cluster_stop(const struct pgl_cluster *c, bool immediate, struct dut_error *err)
{
	char pg_ctl[PATH_MAX + 16];
	char *argv[] = { pg_ctl, "-D", (char *)c->pgdata, "-m", immediate ? "immediate" : "fast",
			 "-w", "-t", "120", "stop", NULL };
	int r;

	if (!pgl_cluster_running(c, NULL)) {
		pgl_cluster_tcp_password_clear(c);
		return memcg_release(c, err);
	}
	snprintf(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	if ((r = pgl_sys_run(argv, "pg_ctl stop", err)) < 0)
		return r;
	/* The port is free for anyone now: no password left for a client to hand over. */
	pgl_cluster_tcp_password_clear(c);
	return memcg_release(c, err);
}

/* --- init ---------------------------------------------------------------- */


/* --- destroy --------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static void add_note(char *note, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (!note || !len)
		return;
	used = strlen(note);
	if (used && used + 2 < len)
		note[used++] = '\n', note[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(note + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * Remove what pgload put in the WAL directory, and the directory if pgload
 * made it, but only if it is still the directory recorded at init: opened
 * without links, its device and inode compared on the fd.  The final rmdir
 * removes only an empty directory, so a swap after the check costs nothing.
 */
static int destroy_wal_dir(const struct pgl_cluster *c, char *note, size_t note_len)
{
	char parent[PATH_MAX], *slash;
	_cleanup_close_ int pfd = -1, fd = -1;
	const char *base;
	struct stat st;
	int r;

	if (!c->wal_dir[0])
		return 0;
	if (!c->wal_dir_id_known) {
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir,
			 "the state file does not say which directory pgload made (made by an older "
			 "pgload); remove it by hand");
		return 0;
	}
	snprintf(parent, sizeof(parent), "%s", c->wal_dir);
	slash = strrchr(parent, '/');
	base = c->wal_dir + (slash - parent) + 1;
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if ((pfd = pgl_sys_open_dir(parent)) < 0 ||
	    (fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = pfd < 0 ? pfd : -errno;
		if (r != -ENOENT)
			add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir, dut_fs_safe_strerror(r));
		return 0;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_dev != c->wal_dir_dev || (uint64_t)st.st_ino != c->wal_dir_ino) {
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir,
			 "it is not the directory pgload made for this cluster (another device/inode)");
		return 0;
	}
	if ((r = pgl_sys_empty_dir_at(fd, NULL)) < 0) {
		add_note(note, note_len, "WAL directory %s: not everything removed: %s", c->wal_dir,
			 dut_fs_safe_strerror(r));
		return 0;
	}
	if (c->wal_dir_created && unlinkat(pfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT)
		add_note(note, note_len, "WAL directory %s kept: %s", c->wal_dir, strerror(errno));
	return 0;
}

static void remove_passfile(const struct pgl_cluster *c)
{
	const char *dir = pgl_cluster_secrets_dir();
	_cleanup_close_ int dfd = -1;

	if (!c->passfile[0] || !pgl_passfile_is_valid(c->passfile, dir))
		return;
	if ((dfd = pgl_sys_open_dir(dir)) >= 0)
		unlinkat(dfd, c->passfile + strlen(dir) + 1, 0);
}

int pgl_cluster_destroy(const char *pgdata, pgl_release_fn release_standby, char *note, size_t note_len,
			struct dut_error *err)
{
	struct pgl_cluster c;
	_cleanup_close_ int pgfd = -1;
	int r;

	if (note && note_len)
		note[0] = '\0';
	if ((r = pgl_cluster_load(pgdata, &c, err)) < 0)
		return r;
	if ((pgfd = pgl_sys_open_dir(c.pgdata)) < 0 ||
	    faccessat(pgfd, "PG_VERSION", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		dut_error_set(err, "%s has a pgload state file but no PG_VERSION: not removing it",
			      c.pgdata);
		return -EINVAL;
	}
	if (pgl_cluster_running(&c, NULL)) {
		struct dut_error e2;

		if (pgl_cluster_stop(&c, false, &e2) < 0 && (r = pgl_cluster_stop(&c, true, err)) < 0)
			return r;
	}
	/* not running (a start that was killed): the cgroup may still be there */
	if ((r = memcg_release(&c, err)) < 0)
		return r;
	/* Before its files go: the primary must not keep waiting for it or its WAL. */
	if (c.sb.is_standby) {
		if (!release_standby) {
			dut_error_set(err, "%s is a standby: not removing it without releasing its slot on the primary",
				      c.pgdata);
			return -EINVAL;
		}
		if ((r = release_standby(&c, err)) < 0)
			return r;
	}
	/* Tablespace directories are the user's: remove only what PostgreSQL put in them. */
	for (unsigned i = 0; i < c.ntablespaces; i++) {
		_cleanup_close_ int fd = pgl_sys_open_dir(c.ts[i].location);

		if (fd < 0) {
			if (fd != -ENOENT)
				add_note(note, note_len, "tablespace directory %s kept: %s", c.ts[i].location,
					 dut_fs_safe_strerror(fd));
			continue;
		}
		if ((r = pgl_sys_empty_dir_at(fd, "PG_")) < 0) {
			dut_error_set(err, "cannot remove PG_* in %s: %s", c.ts[i].location,
				      dut_fs_safe_strerror(r));
			return r;
		}
	}
	if ((r = destroy_wal_dir(&c, note, note_len)) < 0)
		return r;
	dut_remove_tree(c.socket_dir);   /* /tmp/pgload-XXXXXX, checked on load */
	remove_passfile(&c);
	if ((r = dut_remove_tree(c.pgdata)) < 0) {
		dut_error_set(err, "cannot remove %s: %s", c.pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	return 0;
}

