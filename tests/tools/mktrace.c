/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mktrace FILE: write a small known trace with the real writer, for the
 * tools integration tests (fio replay, dutlab report/export end to end).
 *   file 1 base/5/16384     (heap): 8 sequential 8 KiB reads, 4 random 8 KiB writes
 *   file 2 pg_wal/000000010000000000000001: 6 sequential 16 KiB writes + 2 fdatasync
 *   marker "load" before everything, "run" before the WAL writes
 * All offsets lie below 1 MiB.
 */
#include <stdio.h>
#include <string.h>

#include "lib/trace.h"

int main(int argc, char **argv)
{
	struct dut_trace_writer *w;
	uint64_t ts = 1000000000;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: mktrace FILE\n");
		return 2;
	}
	r = dut_trace_writer_open(argv[1], &(struct dut_trace_writer_opts){ .flags = DUT_TRACE_HDR_SYSCALL_VIEW }, &w);
	if (r < 0) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	dut_trace_writer_add_file(w, 1, "base/5/16384", &(struct dut_pg_file){
		.cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663,
		.relfilenode = 16384 });
	dut_trace_writer_add_file(w, 2, "pg_wal/000000010000000000000001", &(struct dut_pg_file){
		.cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 });
	dut_trace_writer_mark(w, ts, "load");
	for (unsigned i = 0; i < 8; i++, ts += 2000000)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = ts, .offset = i * 8192ull, .len = 8192,
			.result = 8192, .lat_ns = 10000, .file_id = 1, .pid = 4242, .op = DUT_OP_READ });
	static const unsigned rnd[] = { 40, 3, 77, 12 };
	for (unsigned i = 0; i < 4; i++, ts += 2000000)
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = ts, .offset = rnd[i] * 8192ull, .len = 8192,
			.result = 8192, .lat_ns = 20000, .file_id = 1, .pid = 4242, .op = DUT_OP_WRITE });
	dut_trace_writer_mark(w, ts, "run");
	for (unsigned i = 0; i < 6; i++, ts += 1000000) {
		dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = ts, .offset = i * 16384ull, .len = 16384,
			.result = 16384, .lat_ns = 30000, .file_id = 2, .pid = 4243, .op = DUT_OP_WRITE });
		if (i % 3 == 2)
			dut_trace_emit(w, &(struct dut_trace_rec){ .ts_ns = ts + 1, .lat_ns = 500000,
				.file_id = 2, .pid = 4243, .op = DUT_OP_FDATASYNC });
	}
	r = dut_trace_writer_close(w);
	if (r < 0) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	return 0;
}
