/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PGL_MAIN_H
#define PGL_MAIN_H

int pgl_main_cluster(int argc, char **argv);
int pgl_main_restore(int argc, char **argv);   /* main_restore.c */
int pgl_main_ledger(int argc, char **argv);    /* ledger_main.c */

struct pgl_session;
/* main_session.c: print what the session has to say and empty its notes: warnings, and where the markers go (--debug). */
void pgl_main_session_notes(struct pgl_session *s);

#endif
