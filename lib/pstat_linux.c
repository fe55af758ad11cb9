/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/stat of one process, read for dut_pstat_parse(): see pstat.h. */
#include <errno.h>
#include <stdio.h>

#include "lib/file_io.h"
#include "lib/pstat.h"

int dut_pstat_read(pid_t pid, struct dut_proc_stat *ret)
{
	char path[64], buf[1024];
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	/* longer than buf cannot be (comm is 16 bytes): -EFBIG still leaves the start in buf */
	r = dut_read_text(path, buf, sizeof(buf));
	if (r < 0 && r != -EFBIG)
		return r;
	return dut_pstat_parse(buf, ret);
}
