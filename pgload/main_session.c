/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What library code that prints nothing has to say (notes.h): the
 * session's (session.c), printed by the programs that open one, pgload
 * init/run (main.c) and pgload ledger (ledger_main.c), and pgload restore's
 * (restore_run.c, printed by main_restore.c).  Its own file so that no main
 * calls into another.
 */
#include "lib/log.h"
#include "pgload/main.h"
#include "pgload/session.h"

void pgl_main_notes(struct pgl_notes *n, struct dut_error *where)
{
	if (where && where->msg[0])
		dut_dbg("%s", where->msg);
	if (where)
		where->msg[0] = '\0';     /* said once */
	for (unsigned i = 0; i < n->n; i++)
		dut_warn("%s", n->v[i].msg);
	if (n->more)
		dut_warn("and %u more like these", n->more);
	n->n = n->more = 0;
}

void pgl_main_session_notes(struct pgl_session *s)
{
	pgl_main_notes(&s->notes, &s->marker.where);
}
