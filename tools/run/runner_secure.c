/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the runner takes from files others can influence, and what it
 * writes where others may read it (pure): libpq conninfo values quoted,
 * pgload's socket directory and port validated, passwords removed from
 * command lines before they are recorded or printed, PostgreSQL setting
 * values checked for control characters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/redact.h"
#include "tools/run/runner.h"

#define SOCKET_DIR_PREFIX "/tmp/pgload-"
#define SOCKET_DIR_SUFFIX_LEN 6         /* mkdtemp's XXXXXX */

int run_conninfo_add(char *buf, size_t len, const char *key, const char *value)
{
	size_t start = strlen(buf), n = start;

	/* libpq: a value in single quotes, with ' and \ escaped by a backslash */
	if (n)
		buf[n++] = ' ';
	for (const char *p = key; *p && n < len; p++)
		buf[n++] = *p;
	if (n < len)
		buf[n++] = '=';
	if (n < len)
		buf[n++] = '\'';
	for (const char *p = value; *p && n < len; p++) {
		if (*p == '\'' || *p == '\\')
			buf[n++] = '\\';
		if (n < len)
			buf[n++] = *p;
	}
	if (n < len)
		buf[n++] = '\'';
	if (n >= len) {
		buf[start] = '\0';     /* nothing half-quoted is left behind */
		return -ENAMETOOLONG;
	}
	buf[n] = '\0';
	return 0;
}

int run_conninfo_build(char *buf, size_t len, const char *host, int port, const char *user, const char *dbname)
{
	char num[16];
	int r;

	if (!len)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	snprintf(num, sizeof(num), "%d", port);
	r = run_conninfo_add(buf, len, "host", host);
	r = r ?: run_conninfo_add(buf, len, "port", num);
	r = r ?: run_conninfo_add(buf, len, "user", user);
	r = r ?: run_conninfo_add(buf, len, "dbname", dbname);
	if (r < 0)
		buf[0] = '\0';
	return r;
}

bool run_socket_dir_ok(const char *dir)
{
	size_t n = strlen(SOCKET_DIR_PREFIX);

	if (!dir || strncmp(dir, SOCKET_DIR_PREFIX, n) != 0 || strlen(dir) != n + SOCKET_DIR_SUFFIX_LEN)
		return false;
	/* mkdtemp's alphabet: no '/', '.', quotes, blanks */
	for (const char *p = dir + n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

bool run_port_ok(long long port)
{
	return port >= 1 && port <= 65535;
}

/* ---- redaction: lib/redact ---- */

char **run_strv_redacted(char *const *v)
{
	return dut_redact_argv(-1, v);
}
