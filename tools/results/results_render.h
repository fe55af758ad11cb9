/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results compare: renderers of one struct results_cmp. */
#ifndef DUTLAB_RESULTS_RENDER_H
#define DUTLAB_RESULTS_RENDER_H

#include <stdio.h>

#include "tools/results/results_db.h"

void results_render_human(FILE *f, const struct results_cmp *cmp);
/* The document "dutlab-results-compare" (docs/results.md); *ret malloc'ed. */
int results_render_json(const struct results_cmp *cmp, json_object *filter, char **ret);

#endif
