/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase markers in a dutfs trace.  When the data directory lives on a
 * dutfs mount, "<mount>/.dutfs/control" exists (lookup works although
 * readdir hides it); writing "mark <label>\n" there puts a marker record
 * into the trace.  Without a control file the markers are no-ops.
 *
 * Used by both halves of pgload (the OLTP session and pgload dss), linked
 * from one static library (pgload_mark).  Nothing here prints: errors are
 * -errno with a message, and what --debug says is left in the marker for
 * the program to print.
 */
#ifndef PGL_MARK_H
#define PGL_MARK_H

#include <limits.h>

#include "lib/error.h"

struct pgl_marker {
	int fd;                    /* -1: no dutfs, markers are no-ops */
	char path[PATH_MAX];       /* the control file, when fd >= 0 */
	/* for --debug: "phase markers go to PATH" or "no dutfs control file above DIR: phase markers are off" */
	struct dut_error where;
	/* "ignoring PATH: why": the first control file found walking up but refused ("" if none) */
	struct dut_error refused;
};

/*
 * Open the control file: `explicit_path` if given (an error if it cannot
 * be opened: -errno, err says "cannot open the dutfs control file PATH:
 * why"), else the first "<dir>/.dutfs/control" walking up from `start_dir`
 * (may be NULL).  Finding none is not an error.
 */
int pgl_marker_open(struct pgl_marker *m, const char *explicit_path, const char *start_dir,
		    struct dut_error *err);
/*
 * Write "mark <label>\n": 0, also without dutfs; -EINVAL when dutfs refused
 * it (err has its answer), else -errno with err.
 */
int pgl_mark(struct pgl_marker *m, const char *label, struct dut_error *err);
void pgl_marker_close(struct pgl_marker *m);

#endif
