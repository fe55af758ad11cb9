/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The head of the answer section (pure): the device under test of each
 * configuration, as the experiment names it, and the memory the server had
 * against the data set.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/report_answer_head.h"
#include "tools/report/rundir_stats.h"

/* The device under test, from dutprobe identify: at the top, since every figure depends on it. */
void answer_target(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps,
			  size_t nsteps)
{
	bool any = false;

	for (size_t s = 0; s < nsteps; s++) {
		if (steps[s].kind != DOC_PROBE_IDENTIFY)
			continue;
		for (size_t i = 0; i < m->nconfigs; i++) {
			const struct dut_result *docs[1];
			json_object *t, *bd, *link;
			const char *tp, *tn;
			double ceil;
			char a[32], seen[300];

			if (!rundir_config_docs(&m->configs[i], steps[s].name, docs, 1))
				continue;
			if (!any)
				rdoc_list(d);
			any = true;
			t = rundir_jget(dut_result_json(docs[0]), "target");
			bd = rundir_jget(t, "block_device");
			link = rundir_jget(t, "link");
			ceil = json_object_get_double(rundir_jget(link, "ceiling_bytes_per_s"));
			/* the target the experiment names, not the run's staging mount identify was given */
			tn = "";
			tp = rundir_identify_target(&m->configs[i], steps[s].name, &tn);
			if (tp && strcmp(tp, rundir_jstr(t, "path")) != 0)
				snprintf(seen, sizeof(seen), "target %s; identify looked at it through the run's mount: "
					 "%s", tn, rundir_jstr(t, "kind"));
			else
				snprintf(seen, sizeof(seen), "%s", rundir_jstr(t, "kind"));
			rdoc_item(d, "Device under test, %s: %s (%s%s%s), device %s%s%s, link %s, interface "
				  "ceiling %s%s.", m->configs[i].name, tp ? tp : rundir_jstr(t, "path"), seen,
				  *rundir_jstr(t, "through") ? ", through " : "", rundir_jstr(t, "through"), rundir_jstr(bd, "name"),
				  *rundir_jstr(bd, "model") ? " " : "", rundir_jstr(bd, "model"), rundir_jstr(link, "description"),
				  ceil > 0 ? rundir_fmt_num(ceil / 1e6, 0, a, sizeof(a)) : "unknown", ceil > 0 ? " MB/s" : "");
		}
	}
}

/* The memory the server had against the data set: what makes a run out of cache. */
void answer_memory(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps,
			  size_t nsteps)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		double db = 0;
		char a[32], b[32];

		for (size_t s = 0; s < nsteps && !db; s++) {
			const struct dut_result *docs[1];

			if (steps[s].kind == DOC_OLTP && rundir_config_docs(c, steps[s].name, docs, 1))
				db = json_object_get_double(rundir_jget(rundir_jget(dut_result_json(docs[0]), "target"),
								 "database_bytes"));
		}
		if (!db && !c->memory_budget_bytes)
			continue;
		if (c->memory_budget_bytes && db > (double)c->memory_budget_bytes)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget with a %s MiB database "
				  "(%.1fx the budget), so the data set did not fit in its memory.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)),
				  rundir_fmt_num(db / 1048576, 0, b, sizeof(b)), db / (double)c->memory_budget_bytes);
		else if (c->memory_budget_bytes && db > 0)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget with a %s MiB database "
				  "(%.1fx the budget): the data set fit in its memory, so its reads could be "
				  "served from memory; a budget below the database size measures the device.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)),
				  rundir_fmt_num(db / 1048576, 0, b, sizeof(b)), db / (double)c->memory_budget_bytes);
		else if (c->memory_budget_bytes)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget.", c->name,
				  rundir_fmt_num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)));
		else
			rdoc_para(d, "Memory, %s: no memory budget; the %s MiB database could sit in the "
				  "host's page cache (%s GiB of memory).", c->name, rundir_fmt_num(db / 1048576, 0, a, sizeof(a)),
				  m->have_host ? rundir_fmt_num((double)m->host.mem_bytes / 1073741824, 1, b, sizeof(b)) : "?");
	}
}
