/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The experiment `dutlab run` runs without a file: the main job.  dutfs
 * in the device view over a directory, a fresh cluster with data checksums
 * in an 80 MiB memory budget (shared_buffers 20MB), pgload init at pgbench
 * scale 25 (~385 MiB: 4.8x the budget), then a read-write and a
 * select-only run of 30 s with 8 clients, 2 threads.
 *
 * The budget is what makes it measure the device: without it the page
 * cache holds the whole database and select-only reads nothing below it
 * (scale 10: 1 device read in 158,564 trace records, 69,669 tps from RAM).
 * With it, on a 2-core machine: 1.65 device-view reads per select-only
 * transaction (132,413 reads, 80,080 transactions), 1.67 per tpcb-like
 * transaction, and the whole run takes about 1m35s.
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
	"; the server's memory budget: the database is ~4.8x of it, so reads reach the device\n"
	"memory = 80MiB\n"
	"\n"
	"[step load]\n"
	"type = oltp-init\n"
	"scale = 25\n"
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
