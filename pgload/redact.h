/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Passwords out of what pgload prints and writes (redact.c, pure): the value
 * of every password=... (key=value conninfo, also as a URI query parameter)
 * and the password of a postgresql:// URI's user:password@ become "***".
 * Result documents are 0644: a -d "... password=x" must not end up there.
 */
#ifndef PGL_REDACT_H
#define PGL_REDACT_H

#include <stddef.h>

#define PGL_REDACTED "***"

/* Copy in to out (cut at len) with the passwords replaced. */
void pgl_redact_conninfo(const char *in, char *out, size_t len);
/* A copy of argv with each argument redacted (NULL-terminated); NULL on ENOMEM. */
char **pgl_redact_argv(int argc, char *const argv[]);
void pgl_redact_argv_free(char **v);

#endif
