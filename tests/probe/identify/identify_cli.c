/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal program around dutprobe_identify_main(), so the identify
 * subcommand can be run (and booted under QEMU) on its own:
 *     identify-cli identify TARGET [--json FILE]
 */
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "probe/identify/identify.h"

int main(int argc, char **argv)
{
	dut_log_init("dutprobe", DUT_LOG_INFO);
	if (argc < 2 || strcmp(argv[1], "identify") != 0) {
		fprintf(stderr, "usage: %s identify TARGET [--json FILE]\n", argv[0]);
		return 2;
	}
	return dutprobe_identify_main(argc - 1, argv + 1);
}
