/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static const char *log_prog = "dutlab";
static enum dut_log_level log_level = DUT_LOG_INFO;

static const char *const level_names[] = {
	[DUT_LOG_ERR] = "error",
	[DUT_LOG_WARN] = "warn",
	[DUT_LOG_INFO] = "info",
	[DUT_LOG_DEBUG] = "debug",
};

int dut_log_level_parse(const char *s, enum dut_log_level *ret_level)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (s && strcmp(s, level_names[i]) == 0) {
			*ret_level = (enum dut_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

void dut_log_init(const char *prog, enum dut_log_level level)
{
	const char *env = getenv("DUT_LOG");
	enum dut_log_level l;

	if (prog) {
		const char *slash = strrchr(prog, '/');
		log_prog = slash ? slash + 1 : prog;
	}
	log_level = level;
	if (env && dut_log_level_parse(env, &l) == 0)
		log_level = l;
}

void dut_log_set_level(enum dut_log_level level)
{
	log_level = level;
}

enum dut_log_level dut_log_get_level(void)
{
	return log_level;
}

const char *dut_log_prog(void)
{
	return log_prog;
}

void dut_log(enum dut_log_level level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* One fprintf per line so concurrent threads do not interleave. */
	if (level == DUT_LOG_DEBUG)
		fprintf(stderr, "%s: debug: %s\n", log_prog, buf);
	else if (level == DUT_LOG_WARN)
		fprintf(stderr, "%s: warning: %s\n", log_prog, buf);
	else
		fprintf(stderr, "%s: %s\n", log_prog, buf);
}
