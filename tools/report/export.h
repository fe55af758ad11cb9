/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab export: a trace as a fio version 3 iolog (replayable with
 * fio --read_iolog=FILE) or as CSV.  Pure formatting into a FILE *.
 */
#ifndef DUTLAB_EXPORT_H
#define DUTLAB_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/trace.h"

enum export_format { EXPORT_FIO = 0, EXPORT_CSV };

struct export_opts {
	enum export_format format;
	const char *prefix;     /* fio: directory prepended to each path; NULL = paths as traced */
	uint32_t ops_mask;      /* bit (1 << op); 0 = the format's default */
	const char *phase;      /* marker label; NULL = whole trace */
};

int export_format_parse(const char *s, enum export_format *ret);
/* "read,write,fsync" -> mask; err names the unknown op. */
int export_ops_parse(const char *s, uint32_t *ret_mask, struct dut_error *err);
/*
 * Everything export_write() can refuse, checked without writing: the phase
 * marker, the ops a fio iolog can replay, the file names it can hold.  Call
 * it before opening the output (dutlab export -o FILE).
 */
int export_check(const struct dut_trace *t, const struct export_opts *o, struct dut_error *err);
/* Records exported: count in *ret_n (may be NULL). */
int export_write(const struct dut_trace *t, const struct export_opts *o, FILE *out,
		 uint64_t *ret_n, struct dut_error *err);

/*
 * The same over a trace file read by the streaming reader (one pass per
 * step, so memory does not grow with the trace; a rotated trace's
 * segments are read as one, docs/trace-format.md): the same output.
 * export_src_open's err holds the truncation warning when meta->truncated.
 */
struct export_src;
int export_src_open(const char *path, struct export_src **ret, struct dut_error *err);
const struct dut_trace *export_src_meta(const struct export_src *s);
int export_src_check(const struct export_src *s, const struct export_opts *o, struct dut_error *err);
int export_src_write(const struct export_src *s, const struct export_opts *o, FILE *out,
		     uint64_t *ret_n, struct dut_error *err);
void export_src_close(struct export_src *s);

#endif
