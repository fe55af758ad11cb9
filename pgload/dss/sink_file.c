/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generation without a server: --to-files DIR writes DIR/<table>.tbl (the
 * generator's '|'-separated lines; load with COPY ... (FORMAT csv,
 * DELIMITER '|') or (FORMAT text, DELIMITER '|')), chunks in order so a
 * file is the same bytes for any thread count; --gen-only generates and
 * throws the rows away, to measure the generator alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/file_io.h"
#include "pgload/dss/dss_priv.h"

struct file_sink {
	int fd[DSS_NTABLES];     /* by job index */
};

static int file_chunk(void *sink, void *tctx, unsigned job, enum dss_table t,
		      const char *buf, size_t len)
{
	struct file_sink *s = sink;

	return dut_write_all(s->fd[job], buf, len);
}

static int null_chunk(void *sink, void *tctx, unsigned job, enum dss_table t,
		      const char *buf, size_t len)
{
	return 0;
}

static const struct dss_sink_ops file_ops = { .chunk = file_chunk, .ordered = true };
static const struct dss_sink_ops null_ops = { .chunk = null_chunk, .ordered = false };

int dss_generate_offline(const struct dss_opts *o, const struct dss_gen *g,
			 struct dss_report *r, struct dut_error *err)
{
	struct file_sink s;
	int ret = 0;

	r->njobs = dss_gen_jobs_tables(g, r->jobs);
	r->sink = o->to_files ? "files" : "null";
	for (unsigned j = 0; j < DSS_NTABLES; j++)
		s.fd[j] = -1;
	for (unsigned j = 0; o->to_files && j < r->njobs; j++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.tbl", o->to_files, dss_table_name(r->jobs[j].t));
		s.fd[j] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (s.fd[j] < 0) {
			ret = -errno;
			dut_error_set(err, "cannot create %s: %s (is --to-files a writable directory?)",
				      path, strerror(errno));
			goto out_close;
		}
	}
	ret = dss_gen_run(g, r->jobs, r->njobs, o->threads, 0, o->to_files ? &file_ops : &null_ops,
			  &s, &r->gen);
	if (ret < 0)
		dut_error_set(err, "generating %s failed: %s",
			      o->to_files ? "the files" : "rows", strerror(-ret));
out_close:
	for (unsigned j = 0; j < DSS_NTABLES; j++) {
		if (s.fd[j] >= 0 && close(s.fd[j]) < 0 && ret == 0) {
			ret = -errno;
			dut_error_set(err, "writing %s/%s.tbl: %s", o->to_files,
				      dss_table_name(r->jobs[j].t), strerror(errno));
		}
	}
	return ret;
}
