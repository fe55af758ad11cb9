/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runner's messages: to the terminal and, once the run directory exists,
 * to its run.log as well.  Every runner_*.c file speaks through these.
 */
#include <stdarg.h>
#include <stdio.h>

#include "tools/run/runner_priv.h"

static void vout(struct runner *R, FILE *to, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void vout(struct runner *R, FILE *to, const char *prefix, const char *fmt, va_list ap)
{
	va_list ap2;

	va_copy(ap2, ap);
	fputs(prefix, to);
	vfprintf(to, fmt, ap);
	fputc('\n', to);
	fflush(to);
	if (R->log) {
		fputs(prefix, R->log);
		vfprintf(R->log, fmt, ap2);
		fputc('\n', R->log);
		fflush(R->log);
	}
	va_end(ap2);
}

void runner_say(struct runner *R, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(R, stdout, "", fmt, ap);
	va_end(ap);
}

void runner_warn(struct runner *R, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(R, stderr, "dutlab run: warning: ", fmt, ap);
	va_end(ap);
}

void runner_error(struct runner *R, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(R, stderr, "dutlab run: ", fmt, ap);
	va_end(ap);
}
