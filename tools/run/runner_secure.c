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

#include "tools/run/runner.h"

#define SOCKET_DIR_PREFIX "/tmp/pgload-"
#define SOCKET_DIR_SUFFIX_LEN 6         /* mkdtemp's XXXXXX */
#define REDACTED "***"

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

/* ---- redaction ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Append s[0..n) to the growing output; false when out of memory. */
static bool out_add(char **o, size_t *olen, size_t *ocap, const char *s, size_t n)
{
	if (*olen + n + 1 > *ocap) {
		size_t cap = (*olen + n + 1) * 2;
		char *b = realloc(*o, cap);

		if (!b)
			return false;
		*o = b;
		*ocap = cap;
	}
	memcpy(*o + *olen, s, n);
	*olen += n;
	(*o)[*olen] = '\0';
	return true;
}

/* Where the value after "password" at p ends (p points at "password"),
 * or NULL when this is not a password keyword. *ret_value: where it starts. */
static const char *password_value(const char *p, bool uri_query, const char **ret_value)
{
	const char *q = p + strlen("password");

	while (!uri_query && is_blank(*q))
		q++;
	if (*q != '=')
		return NULL;
	q++;
	while (!uri_query && is_blank(*q))
		q++;
	*ret_value = q;
	if (!uri_query && *q == '\'') {
		for (q++; *q && *q != '\''; q++)
			if (*q == '\\' && q[1])
				q++;
		return *q ? q + 1 : q;
	}
	while (*q && !(uri_query ? (*q == '&' || *q == '#') : is_blank(*q)))
		q++;
	return q;
}

/* The userinfo password of a postgresql:// URI: [from, to) of "user:PASS@". */
static bool uri_password(const char *s, const char **ret_from, const char **ret_to)
{
	const char *auth, *end, *at = NULL, *colon;

	if (strncmp(s, "postgresql://", 13) == 0)
		auth = s + 13;
	else if (strncmp(s, "postgres://", 11) == 0)
		auth = s + 11;
	else
		return false;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return false;
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (!colon)
		return false;
	*ret_from = colon + 1;
	*ret_to = at;
	return true;
}

char *run_redact_arg(const char *s)
{
	char *o = NULL;
	size_t olen = 0, ocap = 0;
	const char *p = s, *from, *to, *query;
	bool uri = strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;

	if (strncmp(s, "PGPASSWORD=", 11) == 0) {
		if (!out_add(&o, &olen, &ocap, "PGPASSWORD=" REDACTED, strlen("PGPASSWORD=" REDACTED)))
			goto oom;
		return o;
	}
	if (!out_add(&o, &olen, &ocap, "", 0))
		goto oom;
	if (uri && uri_password(s, &from, &to)) {
		if (!out_add(&o, &olen, &ocap, s, (size_t)(from - s)) ||
		    !out_add(&o, &olen, &ocap, REDACTED, strlen(REDACTED)))
			goto oom;
		p = to;
	}
	query = uri ? strchr(p, '?') : NULL;
	while (*p) {
		bool at_word = p == s || (uri ? (p[-1] == '?' || p[-1] == '&') : is_blank(p[-1]));
		const char *vstart, *vend;

		if (at_word && (!uri || (query && p > query)) && strncmp(p, "password", 8) == 0 &&
		    (vend = password_value(p, uri, &vstart))) {
			if (!out_add(&o, &olen, &ocap, p, (size_t)(vstart - p)) ||
			    !out_add(&o, &olen, &ocap, REDACTED, strlen(REDACTED)))
				goto oom;
			p = vend;
			continue;
		}
		if (!out_add(&o, &olen, &ocap, p, 1))
			goto oom;
		p++;
	}
	return o;
oom:
	free(o);
	return NULL;
}

char **run_strv_redacted(char *const *v)
{
	size_t n = 0;
	char **c;

	while (v && v[n])
		n++;
	c = calloc(n + 1, sizeof(*c));
	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(c[i] = run_redact_arg(v[i]))) {
			run_strv_free(c);
			return NULL;
		}
	return c;
}
