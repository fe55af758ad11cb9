/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
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
	if ((r = pgl_marker_open(&s->marker, dutfs_control, pgdata)) < 0) {
		dut_error_set(err, "cannot open the dutfs control file %s", dutfs_control);
		return r;
	}
	s->relmap_on = relmap_on;
	if (relmap_on && (r = pgl_pq_relmap_snapshot(conninfo, s->admin, &s->relmap, err)) < 0)
		return r;
	return 0;
}

void pgl_phase_begin(struct pgl_session *s, const char *phase)
{
	char label[128];

	snprintf(label, sizeof(label), "%s start", phase);
	pgl_mark(&s->marker, label);
}

void pgl_phase_end(struct pgl_session *s, const char *phase)
{
	char label[128];
	struct dut_error e;

	snprintf(label, sizeof(label), "%s end", phase);
	pgl_mark(&s->marker, label);
	if (s->relmap_on && PQstatus(s->admin) == CONNECTION_OK &&
	    pgl_pq_relmap_snapshot(s->conninfo, s->admin, &s->relmap, &e) < 0)
		dut_warn("relation snapshot after %s: %s", phase, e.msg);
}

void pgl_session_note_backends(struct pgl_session *s)
{
	struct dut_error e;

	if (s->relmap_on && pgl_pq_relmap_procs(s->admin, &s->relmap, &e) < 0)
		dut_warn("listing the backends: %s", e.msg);
}

int pgl_relmap_save(const struct pgl_relmap *m, const char *path, struct dut_error *err)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	json_object *doc;
	int r = 0;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	doc = pgl_relmap_to_json(m, when);
	if (!doc)
		return -ENOMEM;
	if (json_object_to_file_ext(path, doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) < 0) {
		dut_error_set(err, "cannot write the relmap to %s: %s", path, json_util_get_last_err());
		r = -EIO;
	}
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
		dut_warn("final relation snapshot: %s", err->msg);
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
