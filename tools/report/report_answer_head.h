/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The head of the answer section (report_answer_head.c, pure). */
#ifndef DUTLAB_REPORT_ANSWER_HEAD_H
#define DUTLAB_REPORT_ANSWER_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

/* "Device under test, CONFIG: PATH (...)" per configuration with a document of identify
 * step `step`, in a list opened unless *list (then set): identify's answer_head op. */
void answer_target(struct rdoc *d, const struct rundir_model *m, const char *step, bool *list);

#endif
