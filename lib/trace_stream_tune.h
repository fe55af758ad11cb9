/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The streaming reader's knobs, for its tests (trace_stream.c). */
#ifndef DUTLAB_TRACE_STREAM_TUNE_H
#define DUTLAB_TRACE_STREAM_TUNE_H

#include <stddef.h>

struct dut_trace_stream;

/*
 * At most this many bytes of compact frames decoded into arrays at once
 * (32 MiB by default; 0: every frame stays encoded and is decoded as merged).
 */
void dut_trace_stream_set_decoded_cap(struct dut_trace_stream *s, size_t bytes);
/*
 * How many blocks the merge has split so far (of every part of a set): a
 * window splits only those with records in it (trace_stream_window.c).
 */
size_t dut_trace_stream_blocks_split(const struct dut_trace_stream *s);

#endif
