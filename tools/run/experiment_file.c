/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading an experiment file: the only I/O of the experiment library. */
#include <errno.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "tools/run/experiment.h"

int dut_experiment_load(const char *path, struct dut_experiment **ret, struct dut_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = dut_read_small_file(path, DUT_EXP_MAX_BYTES, &buf, &len);

	if (r == -EINVAL || r == -EFBIG) {
		dut_error_set(err, "%s: expected a regular file of at most 1 MiB (an experiment), found %s", path,
			      r == -EFBIG ? "a larger file" : "no regular file");
		return -EINVAL;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		dut_error_set(err, "%s: cannot read the experiment: %s", path, strerror(-r));
		return r;
	}
	return dut_experiment_parse(buf, len, path, ret, err);
}
