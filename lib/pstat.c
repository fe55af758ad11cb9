/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pstat.h"

/*
 * "PID (COMM) S PPID ..." where COMM is the executable's name or a process
 * title's first 15 bytes and may itself hold ") (": the fields after it
 * start at the last ')'.  Field numbers as in proc(5): utime 14, stime 15,
 * cutime 16, cstime 17, starttime 22.
 */
int dut_pstat_parse(const char *text, struct dut_proc_stat *ret)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	struct dut_proc_stat st = { 0 };
	char *end;
	long pid;
	size_t len;

	if (!open || !close || close < open)
		return -EINVAL;
	pid = strtol(text, &end, 10);
	if (end == text || pid <= 0 || end > open)
		return -EINVAL;
	st.pid = (int)pid;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(st.comm))
		len = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, len);
	p = close + 1;
	/* field 3 onwards */
	for (int field = 3; field <= 22; field++) {
		long long v;

		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		if (field == 3) {
			st.state = *p++;
			if (*p && *p != ' ')
				return -EINVAL;
			continue;
		}
		/* a few fields (tty_nr, nice) may be negative; the ones kept are not */
		v = strtoll(p, &end, 10);
		if (end == p || (*end && *end != ' ' && *end != '\n'))
			return -EINVAL;
		p = end;
		switch (field) {
		case 4: st.ppid = (int)v; break;
		case 14: st.utime = (uint64_t)v; break;
		case 15: st.stime = (uint64_t)v; break;
		case 16: st.cutime = (uint64_t)v; break;
		case 17: st.cstime = (uint64_t)v; break;
		case 22: st.starttime = (uint64_t)v; break;
		default: break;
		}
	}
	*ret = st;
	return 0;
}
