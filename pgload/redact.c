/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Passwords out of conninfo strings and argv: see redact.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/redact.h"

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
	put(o, PGL_REDACTED, strlen(PGL_REDACTED));
	return end;               /* the '@' is copied by the caller's loop */
}

void pgl_redact_conninfo(const char *in, char *out, size_t len)
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
				put(&o, PGL_REDACTED, strlen(PGL_REDACTED));
				p = value_end(q);
				continue;
			}
		}
		put(&o, p, 1);
		p++;
	}
}

char **pgl_redact_argv(int argc, char *const argv[])
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		/* Redaction never lengthens by more than "***" per password; 3 bytes per input byte is plenty. */
		if (!(v[i] = malloc(n + 3 * n))) {
			pgl_redact_argv_free(v);
			return NULL;
		}
		/* -dCONNINFO: the short option glued to its value */
		if (argv[i][0] == '-' && argv[i][1] && argv[i][1] != '-' && argv[i][2]) {
			memcpy(v[i], argv[i], 2);
			pgl_redact_conninfo(argv[i] + 2, v[i] + 2, n + 3 * n - 2);
		} else {
			pgl_redact_conninfo(argv[i], v[i], n + 3 * n);
		}
	}
	return v;
}

void pgl_redact_argv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}
