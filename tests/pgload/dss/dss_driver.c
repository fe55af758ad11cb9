/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test driver: `dss_driver ARGS` runs pgload_dss_main({"dss", ARGS...}),
 * as `pgload dss ARGS` does once pgload's command table has it, so the
 * integration test does not depend on the pgload program's wiring.
 */
#include "lib/log.h"
#include "pgload/dss/dss.h"

int main(int argc, char **argv)
{
	dut_log_init("pgload", DUT_LOG_INFO);
	argv[0] = (char *)"dss";
	return pgload_dss_main(argc, argv, NULL);
}
