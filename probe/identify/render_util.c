/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Formatting helpers of the identify renderers (render.c, render_inner.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "lib/cleanup.h"
#include "probe/identify/render_json.h"
#include "probe/identify/render_util.h"

char *dp_fmt_iec(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < DUT_ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.2f %s (%" PRIu64 " B)", v, unit[u], bytes);
	return buf;
}

void dp_row(FILE *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "  %-24s ", key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

const char *dp_counter_text(struct dp_counter c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%" PRIu64, c.saturated ? ">= " : "", c.value);
	return buf;
}

int dp_json_counter(json_object *o, json_object *sat, const char *key, struct dp_counter c)
{
	int r;

	ADD(o, key, U64(c.value));
	if (c.saturated)
		return json_object_array_add(sat, STR(key)) < 0 ? -ENOMEM : 0;
	return 0;
}
