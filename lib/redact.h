/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Passwords out of what pgload and dutlab print and write (redact.c, pure):
 * the value of every password=... (key=value conninfo, also as a URI query
 * parameter or after --option=), the password of a postgresql:// URI's
 * user:password@, and the value of a PGPASSWORD=... environment entry
 * become "***".  Result documents and manifests are read by others: a
 * -d "... password=x" must not end up there.
 */
#ifndef DUT_REDACT_H
#define DUT_REDACT_H

#include <stddef.h>

#define DUT_REDACTED "***"

/* Copy in to out (cut at len) with the passwords replaced. */
void dut_redact_conninfo(const char *in, char *out, size_t len);
/* One argument or environment entry, redacted, in a new string; NULL on ENOMEM. */
char *dut_redact_arg(const char *arg);
/* A copy of argv with each argument redacted (NULL-terminated; argc < 0: argv is
 * NULL-terminated); NULL on ENOMEM. */
char **dut_redact_argv(int argc, char *const argv[]);
void dut_redact_argv_free(char **v);

#endif
