/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab run`: the experiment runner's command (tools/dutlab/run_cmd.c).
 * dutlab.c only dispatches to it.
 */
#ifndef DUTLAB_RUN_CMD_H
#define DUTLAB_RUN_CMD_H

extern const char dutlab_run_usage[];

/* argv[0] is "run".  Returns the process exit status. */
int dutlab_cmd_run(int argc, char **argv);

#endif
