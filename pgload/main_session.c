/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the session (session.c, which prints nothing) has to say, printed by
 * the programs that open one: pgload init/run (main.c) and pgload ledger
 * (ledger_main.c).  Its own file so that neither main calls into the other.
 */
#include "lib/log.h"
#include "pgload/main.h"
#include "pgload/session.h"

void pgl_main_session_notes(struct pgl_session *s)
{
	if (s->marker.where.msg[0])
		dut_dbg("%s", s->marker.where.msg);
	s->marker.where.msg[0] = '\0';     /* said once */
	for (unsigned i = 0; i < s->notes.n; i++)
		dut_warn("%s", s->notes.v[i].msg);
	if (s->notes.more)
		dut_warn("and %u more like these", s->notes.more);
	s->notes.n = s->notes.more = 0;
}
