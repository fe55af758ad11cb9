/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Throwaway PostgreSQL clusters on the device under test.
 *
 * A cluster made by `pgload cluster init` is described by a state file
 * inside its data directory, PGDATA/pgload_state.json (PostgreSQL ignores
 * files it does not know; keeping it inside PGDATA means the description
 * goes wherever the cluster goes and `destroy` can tell a pgload cluster
 * from any other directory).  The server listens on a private socket
 * directory (mode 0700, /tmp/pgload-XXXXXX) and on 127.0.0.1 at a port that
 * was free when probed; it logs to PGDATA/pgload_server.log.  When pgload
 * runs as root, initdb and pg_ctl run as user postgres (runuser -u postgres
 * --) and the directories are chowned to postgres.
 */
#ifndef PGL_CLUSTER_H
#define PGL_CLUSTER_H

#include <limits.h>
#include <stdbool.h>

#include "lib/error.h"

#define PGL_DEFAULT_BINDIR "/usr/lib/postgresql/15/bin"
#define PGL_STATE_FILE "pgload_state.json"
#define PGL_SERVER_LOG "pgload_server.log"
#define PGL_MAX_TABLESPACES 16
#define PGL_MAX_SETS 32

struct pgl_tablespace {
	char name[64];
	char location[PATH_MAX];
};

/*
 * A hot standby made by `pgload cluster standby` (standby.c) records where it
 * streams from, so that destroy can undo what it did on the primary: drop its
 * replication slot and, when it made itself the synchronous standby, clear
 * synchronous_standby_names (else every commit on the primary would wait).
 */
struct pgl_standby_info {
	bool is_standby;
	char primary_pgdata[PATH_MAX];
	char app_name[64];               /* application_name in primary_conninfo */
	char slot[64];                   /* physical replication slot on the primary */
	bool sync_set;                   /* we set synchronous_standby_names on the primary */
};

struct pgl_cluster {
	char pgdata[PATH_MAX];
	char bindir[PATH_MAX];
	char socket_dir[PATH_MAX];
	int port;
	char wal_dir[PATH_MAX];          /* "" = pg_wal inside pgdata */
	bool wal_dir_created;            /* initdb created it: destroy removes it */
	unsigned ntablespaces;
	struct pgl_tablespace ts[PGL_MAX_TABLESPACES];
	struct pgl_standby_info sb;      /* sb.is_standby: made by `cluster standby` */
};

struct pgl_cluster_init_opts {
	const char *pgdata, *bindir, *wal_dir;
	unsigned ntablespaces;
	struct pgl_tablespace ts[PGL_MAX_TABLESPACES];
	unsigned nsets;
	const char *sets[PGL_MAX_SETS];   /* "name=value" */
};

/* Every function returns 0 or -errno and explains failures in err. */
int pgl_cluster_init(const struct pgl_cluster_init_opts *o, struct pgl_cluster *ret,
		     struct dut_error *err);
int pgl_cluster_load(const char *pgdata, struct pgl_cluster *ret, struct dut_error *err);
int pgl_cluster_start(struct pgl_cluster *c, struct dut_error *err);
int pgl_cluster_stop(const struct pgl_cluster *c, bool immediate, struct dut_error *err);
/* 1 running (pid set), 0 stopped. */
int pgl_cluster_running(const struct pgl_cluster *c, long *ret_pid);
int pgl_cluster_destroy(const char *pgdata, struct dut_error *err);
void pgl_cluster_conninfo(const struct pgl_cluster *c, char *buf, size_t len);

/*
 * Helpers shared with standby.c (cluster.c).  pgl_sys_run: run argv (as
 * postgres when root), output captured; on failure err holds its last lines.
 */
int pgl_sys_run(char *const argv[], const char *what, struct dut_error *err);
void pgl_sys_file_tail(const char *path, unsigned lines, char *buf, size_t len);
int pgl_sys_chown_postgres(const char *path);
int pgl_sys_postgres_can_write(const char *dir);
int pgl_sys_pick_port(void);
int pgl_sys_remove_tree(const char *path);
int pgl_sys_dir_empty(const char *path);                 /* 1 empty, 0 not, -errno */
int pgl_sys_absolute_path(const char *in, char *out, size_t len);
/* Write the state file (PGDATA/pgload_state.json) atomically. */
int pgl_cluster_save(const struct pgl_cluster *c);

/* "NAME=DIR" -> tablespace (validated name; DIR made absolute). */
int pgl_tablespace_parse(const char *spec, struct pgl_tablespace *ret, struct dut_error *err);

#endif
