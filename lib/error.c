/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "lib/error.h"

void dut_error_set(struct dut_error *e, const char *fmt, ...)
{
	int saved = errno;   /* callers often set the message, then return -errno */
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	errno = saved;
}
