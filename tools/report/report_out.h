/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output file of a dutlab command (export -o, report --json, compare
 * --json), written so that a failure never costs the user a file:
 *
 *   "-", /dev/stdout, /dev/fd/1, /proc/self/fd/1   standard output, as it is
 *   a path that does not exist, or a regular file   a new temporary file in the
 *       same directory (PATH.tmp.PID.N, O_EXCL), renamed over PATH by
 *       out_file_commit() only; out_file_abort() removes the temporary file and
 *       nothing else, so an existing PATH stays byte-identical.  The mode of
 *       a replaced file is kept.
 *   a device, FIFO, socket, or a symbolic link      written in place (opened
 *       without O_CREAT; a link is followed as open(2) follows it, with the
 *       kernel's protected_symlinks checks), never unlinked or renamed over
 *   a directory                                     -EISDIR
 *
 * Validate everything the command can validate before out_file_open(): a
 * FIFO blocks in open until a reader comes, and what goes into a device or
 * through a link cannot be taken back.
 */
#ifndef DUTLAB_REPORT_OUT_H
#define DUTLAB_REPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct out_file {
	FILE *f;                   /* write here */
	char *path;                /* the target as given */
	char *tmp;                 /* the temporary file; NULL when written in place */
};

/* Returns 0 or -errno (-EISDIR for a directory). */
int out_file_open(const char *path, struct out_file *ret);
/* Flush, sync and (for a temporary file) rename over the target; 0 or -errno. On failure it aborts. */
int out_file_commit(struct out_file *o);
/* Close; remove the temporary file, if any. Nothing else is touched. */
void out_file_abort(struct out_file *o);

/* out_file_open, write len bytes of text, out_file_commit; 0 or -errno. */
int out_file_write_text(const char *path, const char *text, size_t len);

struct dut_result;
/* A result document to path ("-": stdout) by out_file_write_text (not dut_result_write_file,
 * which renames over whatever path names, a device included); 0 or -errno. */
int out_file_write_result(const struct dut_result *r, const char *path);

#endif
