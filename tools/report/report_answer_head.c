/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The head of the answer section (pure): the device under test of each
 * configuration, as the experiment names it (identify's answer_head op).
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/report_answer_head.h"
#include "tools/report/rundir_stats.h"

/* The device under test, from dutprobe identify: at the top, since every figure depends on it. */
void answer_target(struct rdoc *d, const struct rundir_model *m, const char *step, bool *list)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		json_object *t, *bd, *link;
		const char *tp, *tn;
		double ceil;
		char a[32], seen[300];

		if (!rundir_config_docs(&m->configs[i], step, docs, 1))
			continue;
		if (!*list)
			rdoc_list(d);
		*list = true;
		t = rundir_jget(dut_result_json(docs[0]), "target");
		bd = rundir_jget(t, "block_device");
		link = rundir_jget(t, "link");
		ceil = json_object_get_double(rundir_jget(link, "ceiling_bytes_per_s"));
		/* the target the experiment names, not the run's staging mount identify was given */
		tn = "";
		tp = rundir_identify_target(&m->configs[i], step, &tn);
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
