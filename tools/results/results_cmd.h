/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results (results_cmd.c). */
#ifndef DUTLAB_RESULTS_CMD_H
#define DUTLAB_RESULTS_CMD_H

extern const char dutlab_results_usage[];
int dutlab_cmd_results(int argc, char **argv);

#endif
