/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The human report in memory, for tests that compare two reports' text. */
#ifndef DUTLAB_TESTS_RENDER_MEM_H
#define DUTLAB_TESTS_RENDER_MEM_H

#include "tools/report/report.h"

/* rep rendered by `by` with `top` rows (0: all) as `dutlab report t.dtr` prints it; NULL on failure. */
char *render_mem_human(const struct report *rep, enum rep_by by, unsigned top);

#endif
