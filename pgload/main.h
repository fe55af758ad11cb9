/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PGL_MAIN_H
#define PGL_MAIN_H

int pgl_main_cluster(int argc, char **argv);
int pgl_main_restore(int argc, char **argv);   /* main_restore.c */
int pgl_main_ledger(int argc, char **argv);    /* ledger_main.c */

struct dut_error;
struct pgl_notes;
struct pgl_session;
/* main_session.c: print notes (warnings) and empty them, and where the markers go (--debug, where may
 * be NULL; said once). */
void pgl_main_notes(struct pgl_notes *n, struct dut_error *where);
/* The same for the session's notes and markers. */
void pgl_main_session_notes(struct pgl_session *s);

#endif
