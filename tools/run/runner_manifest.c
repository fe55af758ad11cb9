/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing the run directory's manifest.json (its document: manifest.c), after
 * every step and while a soak step runs: apart from runner.c, so that the
 * soak watch does not call back into it (no call cycle). */
#include <limits.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/run/runner_priv.h"
#include "tools/run/runner_sys.h"

void runner_write_manifest(struct runner *R)
{
	json_object *m = run_manifest_json(R->st);
	char path[PATH_MAX + 32];
	int r;

	if (!m) {
		runner_warn(R, "out of memory building manifest.json");
		return;
	}
	run_pathf(path, sizeof(path), "%s/manifest.json", R->st->rundir);
	/* command lines with conninfos: root's alone */
	r = run_write_file(path, json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE),
			   RUN_PRIVATE_FILE_MODE);
	json_object_put(m);
	if (r < 0)
		runner_warn(R, "cannot write %s: %s", path, strerror(-r));
}
