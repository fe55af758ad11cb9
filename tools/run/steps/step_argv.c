/* SPDX-License-Identifier: GPL-2.0-or-later */
/* String vectors of command lines (pure): step_argv.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/run/steps/step_argv.h"

#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_MS UINT64_C(1000000)

int run_argv_add(struct run_argv *a, const char *s)
{
	char *copy;

	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	a->v[a->n++] = copy;
	a->v[a->n] = NULL;
	return 0;
}

int run_argv_addf(struct run_argv *a, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s = NULL;
		return -ENOMEM;
	}
	return run_argv_add(a, s);
}

char **run_argv_take(struct run_argv *a)
{
	char **v = a->v;

	if (!v)
		v = calloc(1, sizeof(*v));
	a->v = NULL;
	a->n = a->cap = 0;
	return v;
}

void run_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void run_argv_free(struct run_argv *a)
{
	run_strv_free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

char **run_strv_copy(char *const *v)
{
	struct run_argv a = { 0 };

	for (size_t i = 0; v && v[i]; i++)
		if (run_argv_add(&a, v[i]) < 0) {
			run_argv_free(&a);
			return NULL;
		}
	return run_argv_take(&a);
}

void run_fmt_duration_arg(uint64_t ns, char *buf, size_t len)
{
	if (ns % NS_PER_S == 0)
		snprintf(buf, len, "%" PRIu64, ns / NS_PER_S);
	else
		snprintf(buf, len, "%" PRIu64 "ms", (ns + NS_PER_MS / 2) / NS_PER_MS);
}
