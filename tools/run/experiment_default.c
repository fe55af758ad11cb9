/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The experiment `dutlab run` runs without a file: the main job.  dutfs
 * in the device view over a directory, a fresh cluster with data checksums,
 * pgload init at pgbench scale 10, then a read-write and a select-only run
 * of 30 s with 8 clients, 2 threads.
 */
#include "tools/run/experiment.h"

const char dut_experiment_default_text[] =
	"; dutlab run without an experiment file (the main job)\n"
	"[experiment]\n"
	"name = default\n"
	"description = pgbench read-write and select-only through dutfs over a directory\n"
	"\n"
	"[target work]\n"
	"type = directory\n"
	"path = /var/tmp/dutlab/default\n"
	"\n"
	"[dutfs]\n"
	"view = device\n"
	"trace = yes\n"
	"\n"
	"[postgres]\n"
	"data-checksums = yes\n"
	"\n"
	"[step load]\n"
	"type = oltp-init\n"
	"scale = 10\n"
	"\n"
	"[step tpcb-like]\n"
	"type = oltp-run\n"
	"script = tpcb-like\n"
	"clients = 8\n"
	"threads = 2\n"
	"duration = 30s\n"
	"progress = 10s\n"
	"\n"
	"[step select-only]\n"
	"type = oltp-run\n"
	"script = select-only\n"
	"clients = 8\n"
	"threads = 2\n"
	"duration = 30s\n"
	"progress = 10s\n";
