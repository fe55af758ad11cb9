/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe identify TARGET [--json FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/result.h"
#include "probe/identify/ident.h"
#include "probe/identify/identify.h"

#ifndef DUT_VERSION
#define DUT_VERSION "unknown"
#endif

DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dutprobe identify TARGET [--json FILE]\n"
		"  TARGET   a block device, a partition, or a regular file or directory (then:\n"
		"           its file system and the device beneath, through loop devices)\n"
		"  --json FILE  write a dutlab result document to FILE (\"-\" = stdout) instead of\n"
		"               the table\n"
		"Reports the device's identity (NVMe identify and SMART/health through libnvme,\n"
		"everything else from sysfs), its queue settings, and the link it sits on with\n"
		"the interface ceiling in MB/s.  Behind a USB bridge, the drive inside through\n"
		"smartmontools (smartctl -j -a -d TYPE, the type chosen from the bridge's USB\n"
		"ids).  Reads only; NVMe admin commands and smartctl need root.\n"
		"Environment: DUTPROBE_SYSFS_ROOT (default /sys) for tests; DUTPROBE_SMARTCTL\n"
		"(default: smartctl on PATH).\n");
}

/* Warn once per failed NVMe command: the table shows it too, stderr makes it loud. */
static void warn_nvme(const struct dp_identity *id)
{
	const struct { const char *what; const struct dp_nvme_query *q; } qs[] = {
		{ "namespace id", &id->nvme.q_nsid },
		{ "identify controller", &id->nvme.q_ctrl },
		{ "identify namespace", &id->nvme.q_ns },
		{ "SMART log", &id->nvme.q_smart },
		{ "get features volatile write cache", &id->nvme.q_vwc },
	};
	char msg[512];

	if (!id->have_nvme)
		return;
	for (size_t i = 0; i < DUT_ARRAY_SIZE(qs); i++)
		if (qs[i].q->tried && qs[i].q->err)
			dut_warn("%s: %s", id->nvme.dev_path,
				 dp_nvme_query_text(qs[i].what, qs[i].q, msg, sizeof(msg)));
}

static int write_json(const struct dp_identity *id, const char *path, int argc, char **argv)
{
	_cleanup_(dut_result_freep) struct dut_result *res = dut_result_new("dutprobe", DUT_VERSION);
	struct dut_host host;
	int r;

	if (!res)
		return -ENOMEM;
	if ((r = dut_result_set_command(res, argc, argv)) < 0)
		return r;
	if (dut_host_probe(&host) == 0 && (r = dut_result_set_host(res, &host)) < 0)
		return r;
	if ((r = dp_render_json(id, dut_result_target(res))) < 0)
		return r;
	return dut_result_write_file(res, path);
}

int dutprobe_identify_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_free_ struct dp_identity *id = NULL;
	const char *json_path = NULL;
	char err[1024];
	int c, r;

	optind = 0;  /* argv[0] is "identify"; reset any earlier getopt state */
	while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		dut_err("identify: expected exactly one TARGET (a block device, partition or file)");
		usage(stderr);
		return 2;
	}

	id = calloc(1, sizeof(*id));
	if (!id) {
		dut_err("identify: out of memory");
		return 1;
	}
	r = dp_identify(argv[optind], NULL, id, err, sizeof(err));
	if (r < 0) {
		dut_err("identify: %s", err);
		return 1;
	}
	warn_nvme(id);
	if (id->inner.state == DP_INNER_NO_SMARTCTL)
		dut_warn("%s is behind a USB bridge; %s", id->dev.disk, id->inner.reason);

	if (json_path) {
		r = write_json(id, json_path, argc, argv);
		if (r < 0) {
			dut_err("identify: cannot write the result document to %s: %s", json_path,
				strerror(-r));
			return 1;
		}
		return 0;
	}
	r = dp_render_human(id, stdout);
	if (fflush(stdout) != 0 || r < 0) {
		dut_err("identify: cannot write to stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}
