/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rotation of a bounded trace (--trace-max, docs/trace-format.md "Rotated
 * traces") and its per-second side file, run by the writer thread
 * (trace_writer.c; close after the join).  Before a write would take the
 * newest segment past max_bytes / segments, the writer closes it with its
 * footer, renames it PATH.<seq>, removes PATH.<seq - keep + 1> and starts
 * PATH again with a SEGMENT frame and the INFO, FILE (the last per id) and
 * MARKER frames written so far, kept here for that (their memory is the
 * file table, not the records).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/pgpath.h"
#include "lib/trace_format.h"
#include "lib/trace_writer_priv.h"

/* A meta frame written: keep it for the next segments' opening (or free it). */
void dut_tw_meta_keep(struct dut_trace_writer *w, struct meta *m)
{
	uint32_t type = dut_le32_get(m->frame);

	m->next = NULL;
	if (type == DUT_TRACE_FRAME_FILE && m->len >= DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FILE_FIXED) {
		uint32_t id = dut_le32_get(m->frame + DUT_TRACE_FRAME_HDR_SIZE);

		if (w->sec)
			(void)dut_trace_seconds_file_class(w->sec, id, (enum dut_pg_class)dut_le32_get(
				m->frame + DUT_TRACE_FRAME_HDR_SIZE + 8));
		if (w->seg_max && id < (1u << 24)) {
			if (id >= w->nkept_files) {
				size_t n = w->nkept_files ? w->nkept_files * 2 : 1024;
				struct meta **p;

				while (n <= id)
					n *= 2;
				p = realloc(w->kept_files, n * sizeof(*p));
				if (p) {
					memset(p + w->nkept_files, 0, (n - w->nkept_files) * sizeof(*p));
					w->kept_files = p;
					w->nkept_files = n;
				}
			}
			if (id < w->nkept_files) {
				free(w->kept_files[id]); /* the last entry per id wins */
				w->kept_files[id] = m;
				return;
			}
		}
	} else if (w->seg_max && type == DUT_TRACE_FRAME_INFO) {
		*w->kept_info_tail = m;
		w->kept_info_tail = &m->next;
		return;
	} else if (w->seg_max && type == DUT_TRACE_FRAME_MARKER) {
		*w->kept_markers_tail = m;
		w->kept_markers_tail = &m->next;
		return;
	}
	free(m);
}

void dut_tw_meta_list_free(struct meta *m)
{
	while (m) {
		struct meta *next = m->next;

		free(m);
		m = next;
	}
}

/* A segment's opening: header, SEGMENT frame, then the meta frames kept so far. */
void dut_tw_segment_open_frames(struct dut_trace_writer *w)
{
	uint8_t sf[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_SEGMENT_SIZE];

	w->replaying = true;
	dut_trace_frame_segment(&w->seg, sf);
	(void)dut_tw_append(w, sf, sizeof(sf));
	for (struct meta *m = w->kept_info; m; m = m->next)
		(void)dut_tw_append(w, m->frame, m->len);
	for (size_t i = 0; i < w->nkept_files; i++)
		if (w->kept_files[i])
			(void)dut_tw_append(w, w->kept_files[i]->frame, w->kept_files[i]->len);
	for (struct meta *m = w->kept_markers; m; m = m->next)
		(void)dut_tw_append(w, m->frame, m->len);
	w->replaying = false;
	w->seg_has_data = false;
}

static char *seg_path(const char *path, uint64_t seq)
{
	size_t n = strlen(path) + 24;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s.%" PRIu64, path, seq);
	return p;
}

/* Footer on the current segment, rename it PATH.<seq>, drop the oldest, start PATH anew. */
void dut_tw_rotate(struct dut_trace_writer *w)
{
	char *old = seg_path(w->path, w->seg.seq);
	int fd;

	if (!old || rename(w->path, old) < 0) {
		/* cannot rotate: keep writing this file, unbounded, and say so at close */
		dut_tw_note_error(w, old ? -errno : -ENOMEM);
		free(old);
		w->seg_max = 0;
		return;
	}
	free(old);
	dut_tw_segment_finish(w, false);
	if (w->seg.seq + 1 > w->keep) {
		char *gone = seg_path(w->path, w->seg.seq + 1 - w->keep);

		if (!gone || (unlink(gone) < 0 && errno != ENOENT))
			dut_tw_note_error(w, gone ? -errno : -ENOMEM);
		free(gone);
	}
	fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		dut_tw_note_error(w, -errno); /* later writes fail and count their records as dropped */
	w->fd = fd;
	w->seg_written0 = atomic_load_explicit(&w->written, memory_order_relaxed);
	w->seg_dropped0 = dut_tw_drops_now(w);
	w->seg.seq++;
	w->seg.records_before = w->seg_written0;
	w->seg.dropped_before = w->seg_dropped0;
	w->hdr_written = false;
	w->off = 0;
	w->regular = true;
	atomic_fetch_add_explicit(&w->rotations, 1, memory_order_relaxed);
	dut_tw_segment_open_frames(w);
}

void dut_tw_segment_finish(struct dut_trace_writer *w, bool last)
{
	uint8_t footer[DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE];
	struct dut_trace_footer ft = {
		.records_written = atomic_load_explicit(&w->written, memory_order_relaxed) - w->seg_written0,
		.records_dropped = dut_tw_drops_now(w) - w->seg_dropped0,
		.end_monotonic_ns = dut_tw_now_ns(CLOCK_MONOTONIC),
	};

	if (w->fd < 0)
		return;
	dut_trace_frame_footer(&ft, footer);
	w->replaying = true;
	(void)dut_tw_append(w, footer, sizeof(footer));
	w->replaying = false;
	/* Cut off whatever a failed partial write left behind the last whole frame. */
	if (w->regular && ftruncate(w->fd, (off_t)w->off) < 0)
		dut_tw_note_error(w, -errno);
	if (last && fsync(w->fd) < 0 && w->regular)
		dut_tw_note_error(w, -errno);
	if (close(w->fd) < 0)
		dut_tw_note_error(w, -errno);
	w->fd = -1;
}

/* Finished seconds to the side file (all of them, and its end line, when final). */
void dut_tw_seconds_write(struct dut_trace_writer *w, bool final)
{
	char *text;
	int r;

	if (!w->sec || w->sec_fd < 0)
		return;
	r = dut_trace_seconds_take(w->sec, final, &text);
	if (r < 0) {
		dut_tw_note_error(w, r);
		return;
	}
	for (size_t off = 0, n = strlen(text); off < n;) {
		ssize_t k = write(w->sec_fd, text + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			dut_tw_note_error(w, k < 0 ? -errno : -EIO);
			break;
		}
		off += (size_t)k;
	}
	free(text);
}

void dut_tw_rotation_free(struct dut_trace_writer *w)
{
	dut_tw_meta_list_free(w->kept_info);
	dut_tw_meta_list_free(w->kept_markers);
	for (size_t i = 0; i < w->nkept_files; i++)
		free(w->kept_files[i]);
	free(w->kept_files);
	dut_trace_seconds_free(w->sec);
	if (w->sec_fd >= 0)
		close(w->sec_fd);
	free(w->path);
}

/* --trace-max: segment size, the side file (PATH.seconds). */
int dut_tw_rotation_init(struct dut_trace_writer *w, const char *path,
				const struct dut_trace_writer_opts *o)
{
	unsigned keep = o->max_segments ? o->max_segments : DUT_TRACE_SEGMENTS_DEFAULT;
	size_t n = strlen(path) + sizeof(DUT_TRACE_SECONDS_SUFFIX);
	_cleanup_free_ char *sp = malloc(n);
	int r;

	if (keep < 2 || keep > DUT_TRACE_SEGMENTS_MAX || o->max_bytes / keep < DUT_TRACE_SEGMENT_MIN_BYTES)
		return -EINVAL;
	w->max_bytes = o->max_bytes;
	w->keep = keep;
	w->seg_max = o->max_bytes / keep;
	/* a segment holds at least 8 batches: the bound is kept within a batch */
	if (w->batch_cap > w->seg_max / 8)
		w->batch_cap = (size_t)(w->seg_max / 8) & ~(size_t)7;
	w->seg = (struct dut_trace_segment){ .seq = 1, .keep = keep, .max_bytes = o->max_bytes };
	w->path = strdup(path);
	if (!w->path || !sp)
		return -ENOMEM;
	snprintf(sp, n, "%s%s", path, DUT_TRACE_SECONDS_SUFFIX);
	r = dut_trace_seconds_new(w->hdr.start_realtime_ns, w->hdr.start_monotonic_ns, &w->sec);
	if (r < 0)
		return r;
	w->sec_fd = open(sp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return w->sec_fd < 0 ? -errno : 0;
}
