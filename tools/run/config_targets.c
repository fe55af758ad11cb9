/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which of an experiment's targets a configuration uses, and which hold
 * PostgreSQL's data: read by the checks, the target set-up and the
 * repetition alike, from the experiment alone (pure).
 */
#include <string.h>

#include "tools/run/runner_priv.h"

bool cfg_target_holds_data(const struct dut_experiment *e, const struct dut_config *cfg, size_t t)
{
	const struct dut_config_target *ct = &cfg->targets[t];

	if (!cfg->needs_cluster)
		return false;
	if (ct->holds_pgdata || ct->holds_wal || (ct->holds_replica && cfg->replica != DUT_REPLICA_NONE))
		return true;
	for (size_t i = 0; i < e->ntablespaces; i++)
		if (strcmp(e->tablespaces[i].target, ct->target->name) == 0)
			return true;
	return false;
}

bool cfg_target_used(const struct dut_experiment *e, const struct dut_config *cfg, size_t t)
{
	if (cfg_target_holds_data(e, cfg, t))
		return true;
	for (size_t i = 0; i < e->nsteps; i++) {
		const struct dut_step *s = &e->steps[i];
		const char *name = s->target ? s->target : e->pg_target;

		if (s->type->probe && name && strcmp(name, cfg->targets[t].target->name) == 0)
			return true;
	}
	return false;
}
