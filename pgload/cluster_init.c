/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgload cluster init: new directories checked, the memory plan, initdb as
 * user postgres, settings, authentication files, tablespaces, the WAL directory. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
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

/* PostgreSQL's own default, assumed where init did not record shared_buffers. */
#define PG_DEFAULT_SHARED_BUFFERS (128ull << 20)

static int check_new_dirs(const struct pgl_cluster_init_opts *o, struct dut_error *err)
{
	int r = pgl_sys_dir_empty(o->pgdata);

	if (r == 0) {
		dut_error_set(err, "%s is not empty: refusing to create a cluster there "
			      "(give a new or empty directory)", o->pgdata);
		return -ENOTEMPTY;
	}
	if (r < 0 && r != -ENOENT) {
		dut_error_set(err, "%s: %s", o->pgdata, dut_fs_safe_strerror(r));
		return r;
	}
	if (o->wal_dir && (r = pgl_sys_dir_empty(o->wal_dir)) == 0) {
		dut_error_set(err, "WAL directory %s is not empty", o->wal_dir);
		return -ENOTEMPTY;
	}
	if (o->wal_dir && r < 0 && r != -ENOENT) {
		dut_error_set(err, "WAL directory %s: %s", o->wal_dir, dut_fs_safe_strerror(r));
		return r;
	}
	for (unsigned i = 0; i < o->nsets; i++) {
		char why[256];

		if (pgl_set_check(o->sets[i], why, sizeof(why)) < 0) {
			dut_error_set(err, "bad --set \"%.100s\": %s", o->sets[i], why);
			return -EINVAL;
		}
	}
	for (unsigned i = 0; i < o->ntablespaces; i++) {
		const struct pgl_tablespace *t = &o->ts[i];

		for (unsigned j = 0; j < i; j++) {
			if (strcmp(o->ts[j].name, t->name) == 0) {
				dut_error_set(err, "tablespace %s is given twice", t->name);
				return -EINVAL;
			}
		}
		r = pgl_sys_dir_empty(t->location);
		if (r == 0) {
			dut_error_set(err, "tablespace %s: directory %s is not empty (give an empty directory)",
				      t->name, t->location);
			return -ENOTEMPTY;
		}
		if (r < 0) {
			dut_error_set(err, "tablespace %s: directory %s: %s (create it first)", t->name,
				      t->location, dut_fs_safe_strerror(r));
			return r;
		}
	}
	return 0;
}

static int append_settings(const struct pgl_cluster_init_opts *o, int pgfd, struct dut_error *err)
{
	_cleanup_free_ char *ver = NULL;
	size_t vlen;
	/* I/O timings for pgload run's server counters (docs/pgload.md); track_wal_io_timing is new in 14 */
	bool wal_timing = pgl_sys_read_at(pgfd, "PG_VERSION", &ver, &vlen) == 0 && atoi(ver) >= 14;
	_cleanup_free_ char *text = pgl_settings_text(o->sets, o->nsets, wal_timing ?
		"\n# added by pgload cluster init (TCP logins, with --listen-tcp, use SCRAM)\n"
		"password_encryption = 'scram-sha-256'\n"
		"track_io_timing = on\ntrack_wal_io_timing = on\n"
		"# added by pgload cluster init --set\n" :
		"\n# added by pgload cluster init (TCP logins, with --listen-tcp, use SCRAM)\n"
		"password_encryption = 'scram-sha-256'\n"
		"track_io_timing = on\n"
		"# added by pgload cluster init --set\n");
	int r;

	if (!text)
		return -ENOMEM;
	if ((r = pgl_sys_append_at(pgfd, "postgresql.conf", text, true)) < 0)
		dut_error_set(err, "cannot add settings to %s/postgresql.conf: %s", o->pgdata,
			      dut_fs_safe_strerror(r));
	return r;
}

/* pg_hba.conf and pg_ident.conf: peer for root and postgres (us when not root). */
static int write_auth_files(const struct pgl_cluster *c, int pgfd, struct dut_error *err)
{
	char hba[1024], ident[1024];
	const char *users[3] = { "root", "postgres", NULL };
	struct passwd *pw;
	int r;

	if (!pgl_sys_as_root()) {
		if (!(pw = getpwuid(geteuid()))) {
			dut_error_set(err, "the running user %u has no name (needed for pg_ident.conf)",
				      (unsigned)geteuid());
			return -ENOENT;
		}
		users[0] = pw->pw_name;
		users[1] = NULL;
	}
	if ((r = pgl_hba_text(c->listen_tcp, hba, sizeof(hba))) < 0 ||
	    (r = pgl_ident_text(users, ident, sizeof(ident))) < 0) {
		dut_error_set(err, "cannot make pg_hba.conf / pg_ident.conf: %s", strerror(-r));
		return r;
	}
	if ((r = pgl_sys_write_at(pgfd, "pg_hba.conf", hba, strlen(hba), 0600)) < 0 ||
	    (r = pgl_sys_write_at(pgfd, "pg_ident.conf", ident, strlen(ident), 0600)) < 0)
		dut_error_set(err, "cannot write pg_hba.conf / pg_ident.conf in %s: %s", c->pgdata,
			      dut_fs_safe_strerror(r));
	return r;
}


static int create_tablespaces(const struct pgl_cluster *c, struct dut_error *err)
{
	char conninfo[PATH_MAX + 128];
	PGconn *conn;
	int r = 0;

	if (c->ntablespaces == 0)
		return 0;
	pgl_cluster_conninfo(c, conninfo, sizeof(conninfo));
	if ((r = pgl_pq_connect(conninfo, &conn, err)) < 0)
		return r;
	for (unsigned i = 0; i < c->ntablespaces && r == 0; i++) {
		char sql[PATH_MAX + 256];
		char *lit = PQescapeLiteral(conn, c->ts[i].location, strlen(c->ts[i].location));

		if (!lit) {
			r = -ENOMEM;
			break;
		}
		snprintf(sql, sizeof(sql), "CREATE TABLESPACE %s LOCATION %s", c->ts[i].name, lit);
		PQfreemem(lit);
		r = pgl_pq_exec(conn, sql, err);
	}
	PQfinish(conn);
	return r;
}

/* The WAL directory: made by us when absent; its identity recorded for destroy. */
static int prepare_wal_dir(const char *wal_dir, struct pgl_cluster *c, struct dut_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (pgl_sys_absolute_path(wal_dir, c->wal_dir, sizeof(c->wal_dir)) < 0)
		return -ENAMETOOLONG;
	c->wal_dir_created = pgl_sys_dir_empty(c->wal_dir) == -ENOENT;
	/* initdb runs as postgres and may not be allowed to create it: we do. */
	if (c->wal_dir_created && mkdir(c->wal_dir, 0700) < 0) {
		r = -errno;
		dut_error_set(err, "cannot create the WAL directory %s: %s", c->wal_dir, strerror(-r));
		return r;
	}
	if ((fd = pgl_sys_open_dir(c->wal_dir)) < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		dut_error_set(err, "WAL directory %s: %s", c->wal_dir, dut_fs_safe_strerror(r));
		return r;
	}
	c->wal_dir_id_known = true;
	c->wal_dir_dev = (uint64_t)st.st_dev;
	c->wal_dir_ino = (uint64_t)st.st_ino;
	if ((r = pgl_sys_chown_postgres_fd(fd)) < 0)
		dut_error_set(err, "cannot chown the WAL directory %s to postgres: %s", c->wal_dir,
			      strerror(-r));
	return r;
}

static int chown_dir(const char *path, mode_t mode, struct dut_error *err)
{
	_cleanup_close_ int fd = pgl_sys_open_dir(path);
	int r;

	if (fd < 0) {
		dut_error_set(err, "%s: %s", path, dut_fs_safe_strerror(fd));
		return fd;
	}
	if (mode && fchmod(fd, mode) < 0)
		return -errno;
	if ((r = pgl_sys_chown_postgres_fd(fd)) < 0)
		dut_error_set(err, "cannot chown %s to postgres: %s", path, strerror(-r));
	return r;
}

/* Is the setting name given in --set? */
static const char *set_value(const struct pgl_cluster_init_opts *io, const char *name)
{
	size_t n = strlen(name);

	for (unsigned i = 0; i < io->nsets; i++)
		if (strncasecmp(io->sets[i], name, n) == 0 && io->sets[i][n] == '=')
			return io->sets[i] + n + 1;
	return NULL;
}

/* Add "name=<mib>MB" to the options (text in buf, which must outlive them). */
static int add_default(struct pgl_cluster_init_opts *io, const char *name, uint64_t bytes, char *buf,
		       size_t len, struct dut_error *err)
{
	if (io->nsets >= PGL_MAX_SETS) {
		dut_error_set(err, "too many --set options: with --memory, pgload adds %s (give at most %d)",
			      name, PGL_MAX_SETS - 2);
		return -EINVAL;
	}
	snprintf(buf, len, "%s=%lluMB", name, (unsigned long long)(bytes >> 20));
	io->sets[io->nsets++] = buf;
	return 0;
}

/*
 * The budget's size check, before anything is made: shared_buffers from
 * --set, or (with a budget and none set) min(128 MiB, budget/4) added as a
 * setting to *io (a copy of the caller's options; the texts are in sb_text
 * and mwm_text).  maintenance_work_mem, whose 64MB default alone would
 * overrun a small budget when the primary key is built (the server is then
 * killed by the cgroup's OOM killer), becomes min(64MB, budget/8).
 */
/*
 * The block size of the server in bindir, for a bare shared_buffers: a build
 * of dutlab pg build records it beside its bin/ (lib/pgbin.h); else
 * Debian's 8 kB.
 */
static uint64_t bindir_block_bytes(const char *bindir)
{
	struct dut_pg_build b;

	if (!bindir || dut_pg_build_of_bindir(bindir, &b, NULL) < 0 || !b.block_kb)
		return DUT_PG_DEFAULT_BLOCK_KB * 1024ull;
	return b.block_kb * 1024ull;
}

static int memory_plan(struct pgl_cluster_init_opts *io, char *sb_text, char *mwm_text, size_t len,
		       struct pgl_cluster *c, struct dut_error *err)
{
	const char *set = set_value(io, "shared_buffers");
	struct dut_memcg cg;
	uint64_t mwm;
	char why[400];
	int r;

	c->shared_buffers_bytes = PG_DEFAULT_SHARED_BUFFERS;
	if (set && dut_pg_memory_parse(set, bindir_block_bytes(io->bindir), &c->shared_buffers_bytes) < 0) {
		if (!io->memory_bytes) {
			c->shared_buffers_bytes = 0;    /* unknown: start --memory assumes the default */
			return 0;
		}
		dut_error_set(err, "--set shared_buffers=%.64s: cannot read the size for the check against "
			      "--memory (give it as a number with kB, MB or GB, e.g. 32MB)", set);
		return -EINVAL;
	}
	if (!io->memory_bytes)
		return 0;
	if (!set) {
		c->shared_buffers_bytes = pgl_memory_default_shared_buffers(io->memory_bytes);
		if ((r = add_default(io, "shared_buffers", c->shared_buffers_bytes, sb_text, len, err)) < 0)
			return r;
	}
	if ((r = pgl_memory_check(io->memory_bytes, c->shared_buffers_bytes, why, sizeof(why))) < 0) {
		dut_error_set(err, "--memory: %s", why);
		return r;
	}
	mwm = (io->memory_bytes / 8) & ~((1ull << 20) - 1);
	if (!set_value(io, "maintenance_work_mem") &&
	    (r = add_default(io, "maintenance_work_mem", mwm > (64ull << 20) ? 64ull << 20 : mwm,
			     mwm_text, len, err)) < 0)
		return r;
	/* no memory controller here: say so now, not after initdb */
	if ((r = dut_memcg_locate("pgload-check", io->memory_bytes, &cg, err)) < 0)
		return r;
	c->memory_bytes = io->memory_bytes;
	return 0;
}

int pgl_cluster_init(const struct pgl_cluster_init_opts *oo, struct pgl_cluster *ret,
		     struct dut_error *err)
{
	struct pgl_cluster c;
	struct pgl_cluster_init_opts opts = *oo, *o = &opts;
	char initdb[PATH_MAX + 16], sb_text[64], mwm_text[64];
	_cleanup_close_ int pgfd = -1;
	char newest[PATH_MAX];
	uid_t uid;
	gid_t gid;
	int r;

	memset(&c, 0, sizeof(c));
	c.listen_tcp = o->listen_tcp;
	if ((r = memory_plan(&opts, sb_text, mwm_text, sizeof(sb_text), &c, err)) < 0)
		return r;
	/* without --bindir: the newest PostgreSQL major installed (lib/pgbin.h) */
	if (!o->bindir && (r = dut_pgbin_find(dut_pgbin_root(), 0, newest, sizeof(newest), NULL, err)) < 0)
		return r;
	if (pgl_sys_absolute_path(o->pgdata, c.pgdata, sizeof(c.pgdata)) < 0 ||
	    pgl_sys_absolute_path(o->bindir ? o->bindir : newest, c.bindir, sizeof(c.bindir)) < 0)
		return -ENAMETOOLONG;
	if ((r = pgl_cluster_check_bindir(c.bindir, err)) < 0)
		return r;
	snprintf(initdb, sizeof(initdb), "%s/initdb", c.bindir);
	if (pgl_sys_postgres_ids(&uid, &gid) < 0) {
		dut_error_set(err, "running as root, but there is no user postgres to run the server");
		return -ENOENT;
	}
	if ((r = check_new_dirs(o, err)) < 0)
		return r;
	if (o->wal_dir && (r = prepare_wal_dir(o->wal_dir, &c, err)) < 0)
		return r;
	c.ntablespaces = o->ntablespaces;
	memcpy(c.ts, o->ts, sizeof(c.ts));
	if (mkdir(c.pgdata, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		dut_error_set(err, "cannot create %s: %s", c.pgdata, strerror(-r));
		return r;
	}
	if ((r = chown_dir(c.pgdata, 0700, err)) < 0)
		return r;
	if ((pgfd = pgl_sys_open_dir(c.pgdata)) < 0)
		return pgfd;
	for (unsigned i = 0; i < c.ntablespaces; i++)
		if ((r = chown_dir(c.ts[i].location, 0, err)) < 0)
			goto out_empty;
	if (pgl_sys_postgres_can_write(c.pgdata) < 0) {
		dut_error_set(err, "user postgres cannot write %s: a parent directory is probably "
			      "not searchable (chmod o+x the parents)", c.pgdata);
		r = -EACCES;
		goto out_empty;
	}
	{
		/* No trust, not even before pg_hba.conf is ours. */
		char *argv[] = { initdb, "-D", c.pgdata, "--data-checksums", "-U", "postgres",
				 "--auth-local=peer", "--auth-host=scram-sha-256", "-E", "UTF8",
				 "--locale=C", "-N", o->wal_dir ? "-X" : NULL, c.wal_dir, NULL };

		if ((r = pgl_sys_run(argv, "initdb", err)) < 0)
			goto out_empty;
		if (pgl_cluster_interrupted) {
			dut_error_set(err, "interrupted (during initdb): %s is left empty", c.pgdata);
			r = -EINTR;
			goto out_empty;
		}
	}
	if ((r = write_auth_files(&c, pgfd, err)) < 0 || (r = append_settings(o, pgfd, err)) < 0)
		goto out_empty;
	if ((c.port = pgl_sys_pick_port()) < 0) {
		dut_error_set(err, "no free TCP port in 20000..39999 on 127.0.0.1");
		r = c.port;
		goto out_empty;
	}
	/* From here the state file exists: `cluster destroy` cleans up (the passfile too,
	 * which start writes with the first TCP password). */
	if ((r = pgl_cluster_start(&c, err)) < 0)
		return r; /* keep the cluster and its log for the user to look at */
	if ((r = create_tablespaces(&c, err)) < 0)
		return r;
	*ret = c;
	return 0;

out_empty:
	/* We made pgdata (it was absent or empty): leave it empty again. */
	if (pgfd >= 0 && faccessat(pgfd, PGL_STATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		pgl_sys_empty_dir_at(pgfd, NULL);
	return r;
}
