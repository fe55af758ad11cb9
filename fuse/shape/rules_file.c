/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the rules file: the I/O half of shape_rules_load(). */
#include <errno.h>
#include <string.h>

#include "fuse/shape/rules.h"
#include "lib/cleanup.h"
#include "lib/file_io.h"

#define RULES_MAX_BYTES (1u << 20)

int shape_rules_load(const char *path, struct shape_rules **ret, struct dut_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = dut_read_small_file(path, RULES_MAX_BYTES, &buf, &len);

	if (r == -EINVAL || r == -EFBIG) {
		dut_error_set(err, "%s: expected a regular file of at most 1 MiB of shaping rules", path);
		return -EINVAL;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		dut_error_set(err, "%s: cannot read the shaping rules: %s", path, strerror(-r));
		return r;
	}
	return shape_rules_parse(buf, len, path, ret, err);
}
