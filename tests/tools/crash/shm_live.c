/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash-shm-live: the /dev/shm/PostgreSQL.N segments that running servers
 * own, one name a line: those a live process maps, and those the dynamic
 * shared memory control segment of a running server lists (a pinned area
 * no process maps at the moment).  The root crash tests leave these out of
 * their leak check: a server of someone else on the machine, started during
 * a campaign, is not a leak of the campaign's killed servers (whose control
 * segments no live process maps).  Reads /proc/PID/maps and /dev/shm; the
 * parsing is tools/crash/crash_shm.c's.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file_io.h"
#include "tools/crash/crash_shm.h"

int main(void)
{
	struct crash_shm mapped = { 0 };
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d) {
		perror("crash-shm-live: /proc");
		return 1;
	}
	while ((de = readdir(d))) {
		char path[300], *buf = NULL;
		size_t len = 0;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/maps", de->d_name);
		/* /proc says size 0: read to the end */
		if (dut_read_text_alloc(path, 64u << 20, &buf, &len) == 0)
			crash_shm_from_maps(buf, &mapped);
		free(buf);
	}
	closedir(d);
	for (size_t i = 0; i < mapped.ndsm; i++) {
		struct crash_shm listed = { 0 };
		char path[300], *buf = NULL;
		size_t len = 0;

		printf("%s\n", mapped.dsm[i]);
		snprintf(path, sizeof(path), "/dev/shm/%s", mapped.dsm[i]);
		/* a control segment is small (27 KiB for 122 backends); data segments are not read */
		if (dut_read_small_file(path, 256u << 10, &buf, &len) == 0)
			crash_shm_from_control(buf, len, &listed);
		free(buf);
		for (size_t k = 0; k < listed.ndsm; k++)
			printf("%s\n", listed.dsm[k]);
	}
	return 0;
}
