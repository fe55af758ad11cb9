/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Throwaway PostgreSQL clusters on the device under test.
 *
 * A cluster made by `pgload cluster init` is described by a state file
 * inside its data directory, PGDATA/pgload_state.json (PostgreSQL ignores
 * files it does not know; keeping it inside PGDATA means the description
 * goes wherever the cluster goes and `destroy` can tell a pgload cluster
 * from any other directory).  The server listens only on a private socket
 * directory (mode 0700, owned by postgres, /tmp/pgload-XXXXXX) with peer
 * authentication: OS users root and postgres may be role postgres
 * (pg_hba.conf, pg_ident.conf map "pgload"); nobody else gets in.  With
 * --listen-tcp it also listens on 127.0.0.1, scram-sha-256 only, with a
 * random password in a root-only 0600 passfile in PGL_SECRETS_DIR.  It logs
 * to PGDATA/pgload_server.log.  When pgload runs as root, initdb and pg_ctl
 * run as user postgres (runuser -u postgres --) and the directories belong
 * to postgres.
 *
 * With a memory budget (init/start --memory) the server runs in a memory
 * cgroup (lib/memcg.h) named pgload-<16 hex digits>: pg_ctl is started from
 * a child that has entered it, so the postmaster and every backend are
 * charged for their private and shared memory and for the page cache they
 * fault in, the dutfs mount's included.  Its directory is recorded in the
 * state file before it is made; stop and destroy remove it, and a failed or
 * interrupted start removes it at once.
 *
 * The state file is root's (written by the running euid, 0644, replaced
 * atomically through the directory fd): postgres can delete it but not forge
 * it.  Loading refuses one owned by someone else or reached through a link,
 * and checks every field (cluster_check.h) before root acts on it.
 */
#ifndef PGL_CLUSTER_H
#define PGL_CLUSTER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

#define PGL_STATE_FILE "pgload_state.json"
#define PGL_SERVER_LOG "pgload_server.log"
#define PGL_MAX_TABLESPACES 16
#define PGL_MAX_SETS 32
/* Where passfiles go (root-owned 0700); for other users PGL_SECRETS_DIR_USER + uid. */
#define PGL_SECRETS_DIR "/var/lib/pgload"
#define PGL_SECRETS_DIR_USER "/tmp/pgload-secrets-"

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
	bool wal_dir_created;            /* pgload created it: destroy removes it */
	bool wal_dir_id_known;           /* wal_dir_dev/ino recorded at init */
	uint64_t wal_dir_dev, wal_dir_ino; /* destroy touches it only if it is still this one */
	bool listen_tcp;                 /* also 127.0.0.1, scram-sha-256 */
	char passfile[PATH_MAX];         /* "" without listen_tcp */
	unsigned ntablespaces;
	struct pgl_tablespace ts[PGL_MAX_TABLESPACES];
	struct pgl_standby_info sb;      /* sb.is_standby: made by `cluster standby` */
	uint64_t memory_bytes;           /* the memory budget; 0: none */
	uint64_t shared_buffers_bytes;   /* as init wrote it (the size check of start --memory) */
	char memcg_dir[PATH_MAX];        /* the budget's cgroup (made at start); "" without */
};

struct pgl_cluster_init_opts {
	const char *pgdata, *bindir, *wal_dir;
	unsigned ntablespaces;
	struct pgl_tablespace ts[PGL_MAX_TABLESPACES];
	unsigned nsets;
	const char *sets[PGL_MAX_SETS];   /* "name=value", checked by pgl_set_check */
	bool listen_tcp;
	uint64_t memory_bytes;           /* --memory; 0: no budget */
};

/* Set by the SIGINT/SIGTERM handler of `pgload cluster init|start`: a start
 * that is interrupted stops what it started and removes the cgroup. */
extern volatile int pgl_cluster_interrupted;

/* Every function returns 0 or -errno and explains failures in err. */
int pgl_cluster_init(const struct pgl_cluster_init_opts *o, struct pgl_cluster *ret,
		     struct dut_error *err);
int pgl_cluster_load(const char *pgdata, struct pgl_cluster *ret, struct dut_error *err);
/* With c->memory_bytes set: in a new budget cgroup (recorded in the state file). */
int pgl_cluster_start(struct pgl_cluster *c, struct dut_error *err);
/* The budget's usage: 1 with the numbers, 0 without a budget or cgroup now, -errno. */
int pgl_cluster_memory(const struct pgl_cluster *c, uint64_t *ret_current, uint64_t *ret_peak);
int pgl_cluster_stop(const struct pgl_cluster *c, bool immediate, struct dut_error *err);
/* 1 running (pid set), 0 stopped. */
int pgl_cluster_running(const struct pgl_cluster *c, long *ret_pid);
/* Releases what a standby holds on its primary (pgl_standby_release, standby.h). */
typedef int (*pgl_release_fn)(const struct pgl_cluster *standby, struct dut_error *err);
/* note (may be NULL) says what destroy left in place and why ("" if nothing).
 * A standby's slot is released with release_standby first (standby.c builds on
 * this file, so it is passed in, not called from here); NULL refuses standbys. */
int pgl_cluster_destroy(const char *pgdata, pgl_release_fn release_standby, char *note, size_t note_len,
			struct dut_error *err);
/* Over the socket directory (with passfile= when the cluster listens on TCP). */
void pgl_cluster_conninfo(const struct pgl_cluster *c, char *buf, size_t len);
/* Over 127.0.0.1 with passfile= ("" without listen_tcp). */
void pgl_cluster_tcp_conninfo(const struct pgl_cluster *c, char *buf, size_t len);
/* The directory passfiles go in for this euid. */
const char *pgl_cluster_secrets_dir(void);

/*
 * Helpers shared with standby.c (cluster_sys.c).  pgl_sys_run: run argv (as
 * postgres when root), output captured; on failure err holds its last lines.
 * Inside postgres-owned trees: directories opened without links, files
 * written with dut_write_file_at and owned by postgres (when root), files
 * read only when regular, not links and owned by postgres.
 */
/* bindir/initdb is an executable regular file owned by root (by us when not root). */
int pgl_cluster_check_bindir(const char *bindir, struct dut_error *err);
bool pgl_sys_as_root(void);
/* postgres's ids when root; (uid_t)-1/(gid_t)-1 (keep) otherwise. */
int pgl_sys_postgres_ids(uid_t *uid, gid_t *gid);
int pgl_sys_run(char *const argv[], const char *what, struct dut_error *err);
/* pgl_sys_run with the child moved into the memory cgroup memcg_dir before it execs. */
int pgl_sys_run_in(char *const argv[], const char *what, const char *memcg_dir, struct dut_error *err);
void pgl_sys_file_tail(const char *path, unsigned lines, char *buf, size_t len);
int pgl_sys_postgres_can_write(const char *dir);
int pgl_sys_open_dir(const char *path);                  /* O_RDONLY|O_DIRECTORY, no links */
int pgl_sys_chown_postgres_fd(int fd);
int pgl_sys_write_at(int dirfd, const char *name, const char *text, size_t len, mode_t mode);
int pgl_sys_read_at(int dirfd, const char *name, char **ret, size_t *ret_len);
/* dirfd/name += text (rewritten 0600 through dut_write_file_at). */
int pgl_sys_append_at(int dirfd, const char *name, const char *text, bool must_exist);
/* Remove the entries (those starting with prefix, or all) of the directory at fd. */
int pgl_sys_empty_dir_at(int fd, const char *prefix);
bool pgl_sys_port_free(int port);
int pgl_sys_pick_port(void);
int pgl_sys_remove_tree(const char *path);               /* dut_remove_tree */
int pgl_sys_dir_empty(const char *path);                 /* 1 empty, 0 not, -errno */
int pgl_sys_absolute_path(const char *in, char *out, size_t len); /* and normalised */
/* Write the state file (PGDATA/pgload_state.json) atomically. */
int pgl_cluster_save(const struct pgl_cluster *c);

/* "NAME=DIR" -> tablespace (validated name; DIR made absolute). */
int pgl_tablespace_parse(const char *spec, struct pgl_tablespace *ret, struct dut_error *err);

#endif
