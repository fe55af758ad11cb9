/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "pgload/datagen.h"
#include "pgload/script.h"

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	unsigned n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

size_t pgl_gen_rows(enum pgl_table t, int64_t *next, int64_t last, char *buf, size_t len)
{
	char *p = buf, *end = buf + len;
	int64_t k = *next;

	for (; k <= last && end - p >= PGL_ROW_MAX; k++) {
		p = put_u64(p, (uint64_t)k);
		*p++ = '\t';
		switch (t) {
		case PGL_T_BRANCHES:
			break;
		case PGL_T_TELLERS:
			p = put_u64(p, (uint64_t)((k - 1) / PGL_TELLERS_PER_SCALE + 1));
			*p++ = '\t';
			break;
		case PGL_T_ACCOUNTS:
			p = put_u64(p, (uint64_t)((k - 1) / PGL_ACCOUNTS_PER_SCALE + 1));
			*p++ = '\t';
			break;
		}
		memcpy(p, "0\t\n", 3);
		p += 3;
	}
	*next = k;
	return (size_t)(p - buf);
}
