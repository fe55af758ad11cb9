/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How root connects to a cluster: the conninfo strings, and the TCP password
 * of a --listen-tcp cluster.  Only a running server of ours holds its
 * port, so the passfile holds a password only while the server runs: a new one at every start (set over the socket, then written
 * for that port alone), none after a stop.  A root client that follows an
 * old conninfo to whoever took the port while the server was down finds no
 * password to hand over, and a password leaked across a crash is replaced
 * at the next start.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <libpq-fe.h>

#include "lib/cleanup.h"
#include "lib/fs_safe.h"
#include "pgload/cluster.h"
#include "pgload/cluster_check.h"
#include "pgload/cluster_priv.h"
#include "pgload/pgconn.h"

/* nhex random hex digits and a NUL (names of cgroups, passwords) */
int pgl_cluster_random_hex(char *buf, size_t nhex)
{
	unsigned char raw[32];

	if (nhex / 2 > sizeof(raw) || getrandom(raw, nhex / 2, 0) != (ssize_t)(nhex / 2))
		return -EIO;
	for (size_t i = 0; i < nhex / 2; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

void pgl_cluster_conninfo(const struct pgl_cluster *c, char *buf, size_t len)
{
	/* Cut, it would name another server: make it one libpq refuses (callers give PATH_MAX + 128). */
	if (snprintf(buf, len, "host=%s port=%d user=postgres dbname=postgres%s%s", c->socket_dir,
		     c->port, c->passfile[0] ? " passfile=" : "", c->passfile) >= (int)len)
		snprintf(buf, len, "service=pgload-conninfo-too-long");
}

void pgl_cluster_tcp_conninfo(const struct pgl_cluster *c, char *buf, size_t len)
{
	if (!c->listen_tcp || !c->passfile[0])
		snprintf(buf, len, "%s", "");
	else if (snprintf(buf, len, "host=127.0.0.1 port=%d user=postgres dbname=postgres passfile=%s",
			  c->port, c->passfile) >= (int)len)
		snprintf(buf, len, "service=pgload-conninfo-too-long");
}

/* Give role postgres the password as a SCRAM verifier (the clear text never reaches the server). */
static int set_verifier(const struct pgl_cluster *c, const char *password, struct dut_error *err)
{
	char conninfo[PATH_MAX + 128], *verifier, *lit, sql[1024];
	PGconn *conn;
	int r;

	pgl_cluster_conninfo(c, conninfo, sizeof(conninfo));
	if ((r = pgl_pq_connect(conninfo, &conn, err)) < 0)
		return r;
	verifier = PQencryptPasswordConn(conn, password, "postgres", "scram-sha-256");
	lit = verifier ? PQescapeLiteral(conn, verifier, strlen(verifier)) : NULL;
	if (!lit) {
		dut_error_set(err, "cannot make the SCRAM verifier: %s", PQerrorMessage(conn));
		r = -EIO;
	} else {
		snprintf(sql, sizeof(sql), "ALTER ROLE postgres PASSWORD %s", lit);
		r = pgl_pq_exec(conn, sql, err);
	}
	PQfreemem(lit);
	PQfreemem(verifier);
	PQfinish(conn);
	return r;
}

/*
 * Replace the cluster's root-only 0600 passfile with line (may be ""): the
 * recorded one when it is still a file pgload made, else a new name in the
 * secrets directory (c->passfile names it).
 */
static int write_passfile(struct pgl_cluster *c, const char *line, struct dut_error *err)
{
	const char *dir = pgl_cluster_secrets_dir();
	char bad[PATH_MAX], name[32];
	_cleanup_close_ int dfd = -1;
	int r;

	if ((r = dut_ensure_private_dir(dir, 0700, bad, sizeof(bad))) < 0) {
		dut_error_set(err, "cannot use %s for the password file: %s: %s", dir, bad,
			      dut_fs_safe_strerror(r));
		return r;
	}
	if ((dfd = pgl_sys_open_dir(dir)) < 0)
		return dfd;
	if (c->passfile[0] && pgl_passfile_is_valid(c->passfile, dir)) {
		snprintf(name, sizeof(name), "%s", c->passfile + strlen(dir) + 1);
	} else {
		if ((r = pgl_cluster_random_hex(name, 16)) < 0)
			return r;
		snprintf(name + 16, sizeof(name) - 16, ".pgpass");
	}
	if ((r = dut_write_file_at(dfd, name, line, strlen(line), 0600, (uid_t)-1, (gid_t)-1)) < 0) {
		dut_error_set(err, "cannot write the password file in %s: %s", dir, dut_fs_safe_strerror(r));
		return r;
	}
	snprintf(c->passfile, sizeof(c->passfile), "%s/%s", dir, name);
	return 0;
}

int pgl_cluster_tcp_password_new(struct pgl_cluster *c, struct dut_error *err)
{
	char password[40], line[128];
	int r;

	if (!c->listen_tcp)
		return 0;
	if ((r = pgl_cluster_random_hex(password, 32)) < 0) {
		dut_error_set(err, "cannot draw a password: %s", strerror(-r));
		return r;
	}
	if ((r = set_verifier(c, password, err)) < 0)
		return r;
	snprintf(line, sizeof(line), "127.0.0.1:%d:*:postgres:%s\n", c->port, password);
	r = write_passfile(c, line, err);
	explicit_bzero(password, sizeof(password));
	explicit_bzero(line, sizeof(line));
	return r;
}

void pgl_cluster_tcp_password_clear(const struct pgl_cluster *c)
{
	const char *dir = pgl_cluster_secrets_dir();
	_cleanup_close_ int dfd = -1;

	if (!c->listen_tcp || !c->passfile[0] || !pgl_passfile_is_valid(c->passfile, dir) ||
	    (dfd = pgl_sys_open_dir(dir)) < 0)
		return;
	dut_write_file_at(dfd, c->passfile + strlen(dir) + 1, "", 0, 0600, (uid_t)-1, (gid_t)-1);
}
