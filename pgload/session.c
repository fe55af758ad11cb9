/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The frame around a workload: server, markers, relation map (session.h).  Prints nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/fs_safe.h"
#include "pgload/pgconn.h"
#include "pgload/session.h"

volatile int pgl_stop_requested;

int pgl_session_open(struct pgl_session *s, const char *conninfo, const char *pgdata,
		     const char *dutfs_control, bool relmap_on, struct dut_error *err)
{
	char datadir[4096];
	int r;

	memset(s, 0, sizeof(*s));
	s->conninfo = conninfo;
	s->marker.fd = -1;
	pgl_relmap_init(&s->relmap);
	if ((r = pgl_pq_connect(conninfo, &s->admin, err)) < 0)
		return r;
	if ((r = pgl_pq_settings(s->admin, &s->settings, err)) < 0)
		return r;
	/* Without --pgdata, ask the server where its data lives (superuser only). */
	if (!pgdata && !dutfs_control &&
	    pgl_pq_value(s->admin, "SHOW data_directory", datadir, sizeof(datadir), NULL) == 0)
		pgdata = datadir;
	if ((r = pgl_marker_open(&s->marker, dutfs_control, pgdata, err)) < 0)
		return r;
	if (s->marker.refused.msg[0])
		pgl_note(&s->notes, "%s", s->marker.refused.msg);
	s->relmap_on = relmap_on;
	if (relmap_on && (r = pgl_pq_relmap_snapshot(conninfo, s->admin, &s->relmap, err)) < 0)
		return r;
	return 0;
}

static void mark(struct pgl_session *s, const char *phase, const char *what)
{
	char label[128];
	struct dut_error e;

	snprintf(label, sizeof(label), "%s %s", phase, what);
	if (pgl_mark(&s->marker, label, &e) < 0)
		pgl_note(&s->notes, "%s", e.msg);
}

void pgl_phase_begin(struct pgl_session *s, const char *phase)
{
	mark(s, phase, "start");
}

void pgl_phase_end(struct pgl_session *s, const char *phase)
{
	struct dut_error e;

	mark(s, phase, "end");
	if (s->relmap_on && PQstatus(s->admin) == CONNECTION_OK &&
	    pgl_pq_relmap_snapshot(s->conninfo, s->admin, &s->relmap, &e) < 0)
		pgl_note(&s->notes, "relation snapshot after %s: %s", phase, e.msg);
}

void pgl_session_note_backends(struct pgl_session *s)
{
	struct dut_error e;

	if (s->relmap_on && pgl_pq_relmap_procs(s->admin, &s->relmap, &e) < 0)
		pgl_note(&s->notes, "listing the backends: %s", e.msg);
}

int pgl_relmap_save(const struct pgl_relmap *m, const char *path, struct dut_error *err)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	json_object *doc;
	const char *text;
	int r = 0;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	doc = pgl_relmap_to_json(m, when);
	if (!doc)
		return -ENOMEM;
	/*
	 * Run as root into a directory postgres or another user may write
	 * (a crash campaign's work directory): a link or file planted at path
	 * is replaced, never followed (lib/fs_safe.h).
	 */
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		r = -ENOMEM;
	else
		r = dut_write_file_nofollow(path, text, strlen(text), 0644, (uid_t)-1, (gid_t)-1);
	if (r < 0)
		dut_error_set(err, "cannot write the relmap to %s: %s", path, dut_fs_safe_strerror(r));
	json_object_put(doc);
	return r;
}

int pgl_session_write_relmap(struct pgl_session *s, const char *path, struct dut_error *err)
{
	if (!s->relmap_on)
		return 0;
	/* The server may be gone (crash tests): keep what was seen so far. */
	if (PQstatus(s->admin) != CONNECTION_OK)
		PQreset(s->admin);
	if (PQstatus(s->admin) == CONNECTION_OK &&
	    pgl_pq_relmap_snapshot(s->conninfo, s->admin, &s->relmap, err) < 0)
		pgl_note(&s->notes, "final relation snapshot: %s", err->msg);
	return pgl_relmap_save(&s->relmap, path, err);
}

void pgl_session_close(struct pgl_session *s)
{
	if (s->admin)
		PQfinish(s->admin);
	s->admin = NULL;
	pgl_marker_close(&s->marker);
	pgl_relmap_free(&s->relmap);
}
