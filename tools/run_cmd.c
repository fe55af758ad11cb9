/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab run [ARGS]`: for now executes DUT_TOOLS_DIR/main-job.sh with ARGS.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "tools/run_cmd.h"

#ifndef DUT_TOOLS_DIR
#define DUT_TOOLS_DIR "tools"
#endif

const char dutlab_run_usage[] =
	"usage: dutlab run [ARGS...]\n"
	"  Runs an experiment: executes DUT_TOOLS_DIR/main-job.sh with ARGS\n"
	"  (DUT_TOOLS_DIR defaults to " DUT_TOOLS_DIR ").\n";

int dutlab_cmd_run(int argc, char **argv)
{
	const char *dir = getenv("DUT_TOOLS_DIR");
	char script[PATH_MAX];

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(dutlab_run_usage, stdout);
		return 0;
	}
	if (!dir || !*dir)
		dir = DUT_TOOLS_DIR;
	snprintf(script, sizeof(script), "%s/main-job.sh", dir);
	if (access(script, F_OK) < 0) {
		dut_err("cannot run experiments: %s is missing (set DUT_TOOLS_DIR to the dutlab tools directory)",
			script);
		return 1;
	}
	argv[0] = script;
	execv(script, argv);
	dut_err("cannot execute %s: %s", script, strerror(errno));
	return 1;
}
