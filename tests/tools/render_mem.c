/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "tests/tools/render_mem.h"

char *render_mem_human(const struct report *rep, enum rep_by by, unsigned top)
{
	struct report_opts o = { .trace_path = "t.dtr", .by = by, .top = top };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (report_render_human.render(rep, &o, f, NULL) < 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}
