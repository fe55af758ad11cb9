/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What went wrong without stopping the work (a control file found but
 * refused, a marker dutfs did not take, a relation snapshot that failed):
 * library code keeps the first PGL_NOTES_MAX for the program to print, and
 * counts the rest.  The session (session.h) and pgload restore (the result
 * of restore_sys.h) keep them here; pgl_main_notes (main.h) prints them.
 * Pure.
 */
#ifndef PGLOAD_NOTES_H
#define PGLOAD_NOTES_H

#include "lib/error.h"

#define PGL_NOTES_MAX 8
struct pgl_notes {
	struct dut_error v[PGL_NOTES_MAX];
	unsigned n;
	unsigned more;               /* past PGL_NOTES_MAX */
};

/* Keep one more note (or count it past PGL_NOTES_MAX). */
void pgl_note(struct pgl_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
