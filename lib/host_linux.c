/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host facts a result document records, and the clock.  The only file
 * of the result module that asks the kernel anything.  DUT_PROC_ROOT
 * replaces "/proc" so tests can feed other machines' cpuinfo/meminfo.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/result.h"

static FILE *open_proc(const char *name)
{
	const char *root = getenv("DUT_PROC_ROOT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root && *root ? root : "/proc", name);
	return fopen(path, "re");
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/*
 * The CPU model: the first of these keys in /proc/cpuinfo, in this order:
 * "model name" (x86, older arm), "cpu model" (mips), "cpu" (powerpc),
 * "uarch" (riscv), "Processor"/"Hardware" (old arm).  arm64 has none of
 * them: there we report "ARM implementer 0x41 part 0xd0c" from the
 * "CPU implementer" and "CPU part" lines.
 */
static int read_cpu_model(char *buf, size_t len)
{
	static const char *const keys[] = { "model name", "cpu model", "cpu", "uarch",
					    "Processor", "Hardware", "CPU implementer", "CPU part" };
	enum { IMPLEMENTER = 6, PART = 7 };
	_cleanup_fclose_ FILE *f = open_proc("cpuinfo");
	char vals[DUT_ARRAY_SIZE(keys)][256] = { { 0 } };
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *val;
		size_t klen;

		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		for (size_t i = 0; i < DUT_ARRAY_SIZE(keys); i++) {
			if (strlen(keys[i]) != klen || strncmp(line, keys[i], klen) != 0 || vals[i][0])
				continue;
			val = colon + 1 + strspn(colon + 1, " \t");
			trim(val);
			snprintf(vals[i], sizeof(vals[i]), "%s", val);
		}
	}
	for (size_t i = 0; i < IMPLEMENTER; i++) {
		if (vals[i][0]) {
			size_t n = strnlen(vals[i], len - 1);

			memcpy(buf, vals[i], n);
			buf[n] = '\0';
			return 0;
		}
	}
	if (vals[IMPLEMENTER][0] && vals[PART][0]) {
		snprintf(buf, len, "ARM implementer %.100s part %.100s", vals[IMPLEMENTER], vals[PART]);
		return 0;
	}
	return -ENOENT;
}

static int read_mem_total(uint64_t *ret)
{
	_cleanup_fclose_ FILE *f = open_proc("meminfo");
	char line[256];
	uint64_t kb;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1 && kb > 0) {
			*ret = kb * 1024;
			return 0;
		}
	return -ENOENT;
}

int dut_host_probe(struct dut_host *ret)
{
	struct dut_host h = { { 0 } };
	struct utsname u;
	long n;
	int r;

	if (!ret)
		return -EINVAL;
	if (uname(&u) < 0)
		return -errno;
	snprintf(h.hostname, sizeof(h.hostname), "%s", u.nodename);
	snprintf(h.kernel, sizeof(h.kernel), "%s %s %s", u.sysname, u.release, u.version);
	if (read_cpu_model(h.cpu_model, sizeof(h.cpu_model)) < 0)
		snprintf(h.cpu_model, sizeof(h.cpu_model), "unknown %s", u.machine);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	h.cpus = n > 0 ? (unsigned)n : 1;
	r = read_mem_total(&h.mem_bytes);
	if (r < 0)
		return r;
	*ret = h;
	return 0;
}

int dut_host_utc_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	if (!buf || len < 21)
		return -ERANGE;
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -errno;
	if (!gmtime_r(&ts.tv_sec, &tm))
		return -EOVERFLOW;
	if (strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return -ERANGE;
	return 0;
}
