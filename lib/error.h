/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser error text.  Library code does not print: a parser that rejects
 * input returns -EINVAL (or -ERANGE, ...) and, when the caller passes a
 * struct dut_error, explains what was wrong, quoting the offending text and
 * saying what was expected.  The program's main() prints it once.
 */
#ifndef DUT_ERROR_H
#define DUT_ERROR_H

#include <stddef.h>

struct dut_error {
	char msg[512];
};

/* Format into e->msg; e may be NULL (then nothing happens).  errno is kept, so
 * `dut_error_set(err, "...: %s", strerror(errno)); return -errno;` returns the
 * error that happened. */
void dut_error_set(struct dut_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
