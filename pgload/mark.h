/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase markers in a dutfs trace.  When the data directory lives on a
 * dutfs mount, "<mount>/.dutfs/control" exists (lookup works although
 * readdir hides it); writing "mark <label>\n" there puts a marker record
 * into the trace.  Without a control file the markers are no-ops.
 */
#ifndef PGL_MARK_H
#define PGL_MARK_H

#include <limits.h>

struct pgl_marker {
	int fd;                 /* -1: no dutfs, markers are no-ops */
	char path[PATH_MAX];
};

/*
 * Open the control file: `explicit_path` if given (an error if it cannot
 * be opened), else the first "<dir>/.dutfs/control" walking up from
 * `start_dir` (may be NULL).  Finding none is not an error.
 */
int pgl_marker_open(struct pgl_marker *m, const char *explicit_path, const char *start_dir);
/* Write "mark <label>\n"; logs a warning if dutfs refuses.  No-op without dutfs. */
void pgl_mark(struct pgl_marker *m, const char *label);
void pgl_marker_close(struct pgl_marker *m);

#endif
