/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Passwords out of conninfo strings, argv and environment entries: see redact.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/redact.h"

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->used + 1 < o->len; i++)
		o->buf[o->used++] = s[i];
	if (o->len)
		o->buf[o->used] = '\0';
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* The end of a key=value value at p: quoted ('...' with \ escapes) or up to a space or '&'. */
static const char *value_end(const char *p)
{
	if (*p == '\'') {
		for (p++; *p && *p != '\''; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	while (*p && !is_space(*p) && *p != '&')
		p++;
	return p;
}

/* At a "scheme://": copy it, the user and hide a ":password" before '@'. */
static const char *uri_userinfo(struct out *o, const char *p)
{
	const char *start = strstr(p, "://") + 3, *end = start, *colon = NULL;

	while (*end && *end != '@' && *end != '/' && *end != '?' && *end != '#' && !is_space(*end)) {
		if (*end == ':' && !colon)
			colon = end;
		end++;
	}
	if (*end != '@' || !colon) {
		put(o, p, (size_t)(start - p));
		return start;
	}
	put(o, p, (size_t)(colon + 1 - p));
	put(o, DUT_REDACTED, strlen(DUT_REDACTED));
	return end;               /* the '@' is copied by the caller's loop */
}

void dut_redact_conninfo(const char *in, char *out, size_t len)
{
	static const char key[] = "password";
	struct out o = { out, len, 0 };
	const char *p = in;

	if (len)
		out[0] = '\0';
	while (*p) {
		/* '=' too: --conninfo=password=x, --source=postgresql://u:p@h */
		bool boundary = p == in || is_space(p[-1]) || p[-1] == '?' || p[-1] == '&' || p[-1] == '=';

		if (boundary && (!strncmp(p, "postgresql://", 13) || !strncmp(p, "postgres://", 11))) {
			p = uri_userinfo(&o, p);
			continue;
		}
		if (boundary && !strncmp(p, key, sizeof(key) - 1)) {
			const char *q = p + sizeof(key) - 1;

			while (is_space(*q))
				q++;
			if (*q == '=') {
				q++;
				while (is_space(*q))
					q++;
				put(&o, p, (size_t)(q - p));
				put(&o, DUT_REDACTED, strlen(DUT_REDACTED));
				p = value_end(q);
				continue;
			}
		}
		put(&o, p, 1);
		p++;
	}
}

char *dut_redact_arg(const char *arg)
{
	static const char env[] = "PGPASSWORD=";
	size_t n = strlen(arg) + 1, cap = n + 3 * n;   /* "***" per password at most */
	char *v = malloc(cap);

	if (!v)
		return NULL;
	if (!strncmp(arg, env, sizeof(env) - 1)) {
		snprintf(v, cap, "%s%s", env, DUT_REDACTED);
	} else if (arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2]) {
		/* -dCONNINFO: the short option glued to its value */
		memcpy(v, arg, 2);
		dut_redact_conninfo(arg + 2, v + 2, cap - 2);
	} else {
		dut_redact_conninfo(arg, v, cap);
	}
	return v;
}

char **dut_redact_argv(int argc, char *const argv[])
{
	size_t n = 0;
	char **v;

	if (argc >= 0)
		n = (size_t)argc;
	else
		while (argv && argv[n])
			n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = dut_redact_arg(argv[i]))) {
			dut_redact_argv_free(v);
			return NULL;
		}
	return v;
}

void dut_redact_argv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
