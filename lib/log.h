/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Program logging with levels.  Only programs (main and the code it wires up)
 * log; library code returns -errno and leaves the message to its caller.
 * Messages go to stderr as "prog: text"; debug lines carry a level tag.
 * The level comes from dut_log_init(), or the DUT_LOG environment variable
 * (error|warn|info|debug) when set.
 */
#ifndef DUT_LOG_H
#define DUT_LOG_H

enum dut_log_level {
	DUT_LOG_ERR = 0,
	DUT_LOG_WARN,
	DUT_LOG_INFO,
	DUT_LOG_DEBUG,
};

void dut_log_init(const char *prog, enum dut_log_level level);
void dut_log_set_level(enum dut_log_level level);
enum dut_log_level dut_log_get_level(void);
/* "error", "warn", "info", "debug" -> level; -EINVAL otherwise. */
int dut_log_level_parse(const char *s, enum dut_log_level *ret_level);
const char *dut_log_prog(void);

void dut_log(enum dut_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define dut_err(...) dut_log(DUT_LOG_ERR, __VA_ARGS__)
#define dut_warn(...) dut_log(DUT_LOG_WARN, __VA_ARGS__)
#define dut_info(...) dut_log(DUT_LOG_INFO, __VA_ARGS__)
#define dut_dbg(...) dut_log(DUT_LOG_DEBUG, __VA_ARGS__)

#endif
