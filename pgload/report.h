/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers: one result struct -> human text, or -> a dutlab-result
 * document (lib/result.h).  The program adds command and host and writes
 * the document.  Nothing here measures.
 */
#ifndef PGL_REPORT_H
#define PGL_REPORT_H

#include <stdio.h>

#include "lib/result.h"
#include "pgload/result.h"

void pgl_run_print(const struct pgl_run_result *r, FILE *out);
/* "database size: ..." and "memory budget: ... (peak usage ...)" lines (none where unknown). */
void pgl_memory_print(const struct pgl_memory_info *m, FILE *out);
int pgl_run_to_doc(const struct pgl_run_result *r, struct dut_result *doc);

void pgl_init_print(const struct pgl_init_result *r, FILE *out);
int pgl_init_to_doc(const struct pgl_init_result *r, struct dut_result *doc);

#endif
