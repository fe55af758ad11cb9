/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment files (tools/run): good files -> exact structures and plans,
 * every kind of bad input -> its message with file:line, the shipped
 * experiments and the built-in default parse and fit their time budget.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/rules.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"
#include "tools/run/experiment.h"

#define S 1000000000ull
#define TGT_DIR "[target t]\ntype = directory\npath = /tmp/x\n"

static struct dut_experiment *parse_ok(const char *text, const char *row)
{
	struct dut_experiment *e = NULL;
	struct dut_error err = { "" };
	int r = dut_experiment_parse(text, strlen(text), "t.ini", &e, &err);

	CU_CHECK(r == 0, "%s: parse failed (%d): %s", row, r, err.msg);
	return r == 0 ? e : NULL;
}

static void test_default_experiment_is_the_main_job(void)
{
	struct dut_experiment *e = parse_ok(dut_experiment_default_text, "default");
	struct dut_plan *p = NULL;

	if (!e)
		return;
	CU_ASSERT_STRING_EQUAL(e->name, "default");
	CU_ASSERT_EQUAL(e->ntargets, 1);
	CU_ASSERT_EQUAL(e->targets[0].type, DUT_TARGET_DIRECTORY);
	CU_ASSERT_STRING_EQUAL(e->targets[0].path, "/var/tmp/dutlab/default");
	CU_ASSERT_EQUAL(e->view, DUT_VIEW_DEVICE);
	CU_ASSERT(e->trace);
	CU_ASSERT(e->data_checksums);
	CU_ASSERT_STRING_EQUAL(e->pg_target, "work");
	CU_ASSERT_EQUAL(e->nsteps, 3);
	CU_ASSERT_STRING_EQUAL(e->steps[0].type->name, "oltp-init");
	/* out of cache (#17): a database of ~4.8x the server's memory budget */
	CU_ASSERT_EQUAL(dut_step_param(&e->steps[0], "scale")->u, 25);
	CU_ASSERT_EQUAL(e->pg_memory_bytes, 80ull << 20);
	CU_ASSERT(25 * (DUT_PGBENCH_TABLE_BYTES_PER_SCALE + DUT_PGBENCH_INDEX_BYTES_PER_SCALE) >
		  4 * e->pg_memory_bytes);
	CU_ASSERT_STRING_EQUAL(dut_step_param(&e->steps[1], "script")->text, "tpcb-like");
	CU_ASSERT_STRING_EQUAL(dut_step_param(&e->steps[2], "script")->text, "select-only");
	for (int i = 1; i <= 2; i++) {
		CU_ASSERT_EQUAL(dut_step_param(&e->steps[i], "duration")->u, 30 * S);
		CU_ASSERT_EQUAL(dut_step_param(&e->steps[i], "clients")->u, 8);
		CU_ASSERT_EQUAL(dut_step_param(&e->steps[i], "threads")->u, 2);
	}
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL(p->nconfigs, 1);
	CU_ASSERT_STRING_EQUAL(p->configs[0].name, "default");
	CU_ASSERT_EQUAL(p->nitems, 4);
	CU_ASSERT_EQUAL(p->items[0].kind, DUT_PLAN_SETUP);
	/* setup (teardown 5 s + initdb 10 s), init 25 x 1 s, two runs of 30 s */
	CU_ASSERT_EQUAL(p->items[0].est_ns, 15 * S);
	CU_ASSERT_EQUAL(p->items[1].est_ns, 25 * S);
	CU_ASSERT_EQUAL(p->items[2].est_ns, 30 * S);
	CU_ASSERT_EQUAL(p->items[3].start_ns, 70 * S);
	CU_ASSERT_EQUAL(p->est_ns, 100 * S);
	/* cluster 64 MiB + WAL 1 GiB + 25 x (13 + 2) MiB */
	CU_ASSERT_EQUAL(p->configs[0].space_bytes, (64ull << 20) + (1ull << 30) + 25 * (15ull << 20));
	dut_plan_free(p);
	dut_experiment_free(e);
}

static const char matrix_text[] =
	"[experiment]\n"
	"name = fsm\n"
	"repetitions = 2\n"
	"[target img]\n"
	"type = image\n"
	"path = /var/tmp/x.img\n"
	"size = 2GiB\n"
	"[filesystem ext4-1k]\n"
	"type = ext4\n"
	"data = writeback\n"
	"block-size = 1k\n"
	"mount-options = noatime\n"
	"[matrix]\n"
	"filesystem = ext4-ordered, ext4-1k, xfs\n"
	"view = device, syscall\n"
	"[postgres]\n"
	"set = shared_buffers = 128MB\n"
	"set = random_page_cost=1.1\n"
	"[step load]\n"
	"type = oltp-init\n"
	"scale = 5\n"
	"[step ro]\n"
	"type = oltp-run\n"
	"script = select-only@3, tpcb-like\n"
	"clients = 4\n"
	"threads = 2\n"
	"duration = 20s\n"
	"repeat = 2\n";

static void test_matrix_expands_first_key_slowest(void)
{
	static const char *const names[] = { "ext4-ordered+device", "ext4-ordered+syscall", "ext4-1k+device",
					     "ext4-1k+syscall", "xfs+device", "xfs+syscall" };
	struct dut_experiment *e = parse_ok(matrix_text, "matrix");
	struct dut_plan *p = NULL;
	const struct dut_filesystem *f;

	if (!e)
		return;
	CU_ASSERT_EQUAL(e->nconfigs, 6);
	CU_ASSERT_EQUAL(e->ndims, 2);
	CU_ASSERT_EQUAL(e->nsettings, 2);
	CU_ASSERT_STRING_EQUAL(e->settings[0].name, "shared_buffers");
	CU_ASSERT_STRING_EQUAL(e->settings[0].value, "128MB");
	CU_ASSERT_STRING_EQUAL(e->settings[1].value, "1.1");
	f = dut_experiment_filesystem(e, "ext4-1k");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->type, DUT_FS_EXT4);
	CU_ASSERT_EQUAL(f->data, DUT_EXT4_WRITEBACK);
	CU_ASSERT_EQUAL(f->block_size, 1024);
	CU_ASSERT_STRING_EQUAL(f->mount_options, "noatime");
	CU_ASSERT_EQUAL(dut_step_param(&e->steps[1], "script")->u, 2);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 6);
	for (size_t i = 0; i < 6; i++) {
		CU_CHECK(strcmp(p->configs[i].name, names[i]) == 0, "config %zu: expected %s, found %s", i, names[i],
			 p->configs[i].name);
		CU_CHECK(p->configs[i].view == (i % 2 ? DUT_VIEW_SYSCALL : DUT_VIEW_DEVICE), "config %zu view", i);
		CU_CHECK(p->configs[i].targets[0].fs == p->configs[i].filesystem, "config %zu fs", i);
	}
	CU_ASSERT_EQUAL(p->configs[2].filesystem->block_size, 1024);
	/* per configuration: 2 repetitions x (setup + load + ro x2); interleaved
	 * (the default with repetitions): block j is configuration j % 6, rep j / 6 */
	CU_ASSERT_EQUAL(e->order, DUT_ORDER_INTERLEAVED);
	CU_ASSERT_EQUAL_FATAL(p->nitems, 6 * 2 * 4);
	{
		static const struct { enum dut_plan_item_kind kind; unsigned step, it; } order[] = {
			{ DUT_PLAN_SETUP, 0, 0 }, { DUT_PLAN_STEP, 0, 0 }, { DUT_PLAN_STEP, 1, 0 }, { DUT_PLAN_STEP, 1, 1 },
		};
		uint64_t t = 0;

		for (size_t i = 0; i < p->nitems; i++) {
			const struct dut_plan_item *it = &p->items[i];
			size_t j = i / 4, o = i % 4;

			CU_CHECK(it->config == j % 6 && it->rep == j / 6 && it->kind == order[o].kind &&
				 (it->kind == DUT_PLAN_SETUP || (it->step == order[o].step && it->iteration == order[o].it)),
				 "item %zu: config %u kind %d rep %u step %u it %u", i, it->config, it->kind, it->rep,
				 it->step, it->iteration);
		}
		for (size_t i = 0; i < p->nitems; i++) {
			CU_CHECK(p->items[i].start_ns == t, "item %zu starts at the sum of the ones before", i);
			t += p->items[i].est_ns;
		}
		CU_ASSERT_EQUAL(t, p->est_ns);
	}
	/* setup: mkfs 5 + initdb 10 + teardown 5; load 5 s; ro 2 x 20 s; x 2 reps */
	CU_ASSERT_EQUAL(p->configs[0].setup_ns, 20 * S);
	CU_ASSERT_EQUAL(p->configs[0].est_ns, 2 * (20 + 5 + 40) * S);
	dut_plan_free(p);
	dut_experiment_free(e);
}

/*
 * [experiment] order: each (configuration, repetition) is one block of a
 * setup and the steps; interleaved runs the blocks repetition-major,
 * sequential configuration-major.  Without the key: interleaved with
 * repetitions > 1, sequential with one (the same thing then).  Either way a
 * configuration's estimate and its printed block are the same.
 */
static void test_plan_order_interleaved_or_sequential(void)
{
	static const struct {
		const char *keys;       /* [experiment] lines */
		enum dut_exp_order order;
		unsigned reps;
		const char *line;       /* in the dry-run text */
	} rows[] = {
		{ "repetitions = 2\n", DUT_ORDER_INTERLEAVED, 2,
		  "order: interleaved (rep 1 of each configuration, then rep 2 of each ..., the default with repetitions)" },
		{ "repetitions = 3\norder = interleaved\n", DUT_ORDER_INTERLEAVED, 3,
		  "order: interleaved (rep 1 of each configuration, then rep 2 of each ...)\n" },
		{ "repetitions = 2\norder = sequential\n", DUT_ORDER_SEQUENTIAL, 2,
		  "order: sequential (all repetitions of configuration 1, then of configuration 2 ...); a drift" },
		{ "", DUT_ORDER_SEQUENTIAL, 1,
		  "order: sequential (one repetition of each configuration in turn, the default with one repetition)" },
		{ "order = interleaved\n", DUT_ORDER_INTERLEAVED, 1, "order: interleaved" },
	};
	uint64_t est[3] = { 0 };
	char *blocks = NULL;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char text[1024], *buf = NULL;
		size_t len = 0, k = 0;
		struct dut_experiment *e;
		struct dut_plan *p = NULL;
		FILE *f;

		snprintf(text, sizeof(text), "[experiment]\n%s" TGT_DIR "[matrix]\nview = device, syscall, off\n"
			 "[step b]\ntype = bench\nsize = 64M\nrepeat = 2\n", rows[i].keys);
		if (!(e = parse_ok(text, rows[i].keys)))
			continue;
		CU_CHECK(e->order == rows[i].order && e->repetitions == rows[i].reps, "row %zu: order %s, %u reps", i,
			 dut_exp_order_name(e->order), e->repetitions);
		CU_CHECK(e->order_line == (strstr(rows[i].keys, "order") ? (rows[i].reps > 1 ? 3u : 2u) : 0u),
			 "row %zu: order_line %u", i, e->order_line);
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		CU_ASSERT_EQUAL_FATAL(p->nitems, 3 * rows[i].reps * 3);
		/* the blocks in order, each a setup and b twice */
		for (unsigned outer = 0; outer < (rows[i].order == DUT_ORDER_INTERLEAVED ? rows[i].reps : 3); outer++)
			for (unsigned inner = 0; inner < (rows[i].order == DUT_ORDER_INTERLEAVED ? 3 : rows[i].reps); inner++)
				for (unsigned x = 0; x < 3; x++, k++) {
					const struct dut_plan_item *it = &p->items[k];
					unsigned c = rows[i].order == DUT_ORDER_INTERLEAVED ? inner : outer;
					unsigned r = rows[i].order == DUT_ORDER_INTERLEAVED ? outer : inner;

					CU_CHECK(it->config == c && it->rep == r && it->kind == (x ? DUT_PLAN_STEP : DUT_PLAN_SETUP) &&
						 (!x || it->iteration == x - 1), "row %zu item %zu: config %u rep %u kind %d it %u; "
						 "expected config %u rep %u", i, k, it->config, it->rep, it->kind, it->iteration, c, r);
				}
		for (size_t c = 0; c < 3; c++) {
			/* per configuration the same whatever the order: compare with the first row of its reps */
			if (rows[i].reps == 2 && !est[c])
				est[c] = p->configs[c].est_ns;
			else if (rows[i].reps == 2)
				CU_CHECK(p->configs[c].est_ns == est[c], "row %zu config %zu: estimate %llu, expected %llu", i, c,
					 (unsigned long long)p->configs[c].est_ns, (unsigned long long)est[c]);
		}
		CU_CHECK(p->configs[2].est_ns == rows[i].reps * (p->configs[2].setup_ns + 2 * p->items[1].est_ns),
			 "row %zu: config 3 estimate %llu", i, (unsigned long long)p->configs[2].est_ns);
		f = open_memstream(&buf, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL(dutlab_run_print_plan(p, f), 0);
		fclose(f);
		CU_CHECK(strstr(buf, rows[i].line) != NULL, "row %zu: plan text lacks \"%s\":\n%s", i, rows[i].line, buf);
		/* the last configuration's block shows its steps' estimates, not zeros */
		CU_CHECK(strstr(strstr(buf, "[3/3] off") ? strstr(buf, "[3/3] off") : buf, "b                bench      ~") &&
			 !strstr(buf, "bench      ~0s"), "row %zu: step estimates:\n%s", i, buf);
		/* and the configurations' blocks read the same whatever the order */
		if (rows[i].reps == 2 && strstr(buf, "\n[1/3]")) {
			if (!blocks)
				blocks = strdup(strstr(buf, "\n[1/3]"));
			else
				CU_CHECK(strcmp(blocks, strstr(buf, "\n[1/3]")) == 0, "row %zu: the blocks differ:\n%s\n---\n%s", i,
					 blocks, strstr(buf, "\n[1/3]"));
		}
		free(buf);
		dut_plan_free(p);
		dut_experiment_free(e);
	}
	CU_ASSERT_PTR_NOT_NULL(blocks);
	free(blocks);
}

static const char placement_text[] =
	"[target slow]\ntype = image\npath = slow.img\nsize = 4G\nfilesystem = xfs\nshape = hdd.ini\n"
	"[target fast]\ntype = image\npath = fast.img\nsize = 4G\nfilesystem = ext4-ordered\n"
	"[tablespace fastts]\ntarget = fast\n"
	"[tablespace slowts]\ntarget = slow\n"
	"[postgres]\ntarget = slow\nwal-on = fast\n"
	"[matrix]\ntables-on = slowts, fastts\nindexes-on = slowts, fastts\n"
	"[step init]\ntype = oltp-init\nscale = 20\n"
	"[step run]\ntype = oltp-run\nduration = 60s\n";

static void test_placement_puts_space_on_the_tablespace_targets(void)
{
	struct dut_experiment *e = parse_ok(placement_text, "placement");
	struct dut_plan *p = NULL;
	const uint64_t tables = 20 * (13ull << 20), idx = 20 * (2ull << 20);

	if (!e)
		return;
	CU_ASSERT_STRING_EQUAL(e->name, "t");    /* from the file name */
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 4);
	CU_ASSERT_STRING_EQUAL(p->configs[1].name, "tables=slowts+indexes=fastts");
	CU_ASSERT_STRING_EQUAL(p->configs[1].tables_on, "slowts");
	CU_ASSERT_STRING_EQUAL(p->configs[1].indexes_on, "fastts");
	CU_ASSERT_STRING_EQUAL(p->configs[1].targets[0].shape, "hdd.ini");
	CU_ASSERT_PTR_NULL(p->configs[1].targets[1].shape);
	CU_ASSERT(p->configs[1].targets[0].holds_pgdata);
	CU_ASSERT(p->configs[1].targets[1].holds_wal);
	CU_ASSERT_EQUAL(p->configs[1].targets[0].space_bytes, (64ull << 20) + tables);
	CU_ASSERT_EQUAL(p->configs[1].targets[1].space_bytes, (1ull << 30) + idx);
	CU_ASSERT_EQUAL(p->configs[2].targets[0].space_bytes, (64ull << 20) + idx);
	CU_ASSERT_EQUAL(p->configs[2].targets[1].space_bytes, (1ull << 30) + tables);
	dut_plan_free(p);
	dut_experiment_free(e);
}

static const char replica_text[] =
	"[target primary]\ntype = image\npath = /var/tmp/p.img\nsize = 2G\n"
	"[target standby]\ntype = image\npath = /var/tmp/s.img\nsize = 2G\n"
	"[experiment]\nfilesystem = ext4-ordered\n"
	"[replica]\ntarget = standby\n"
	"[matrix]\nreplica = none, async, sync\nset.synchronous_commit = on, off\n"
	"[step init]\ntype = oltp-init\nscale = 10\n"
	"[step run]\ntype = oltp-run\ntransactions = 1000\nclients = 3\n";

static void test_replica_modes_and_setting_dimension(void)
{
	struct dut_experiment *e = parse_ok(replica_text, "replica");
	struct dut_plan *p = NULL;

	if (!e)
		return;
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 6);
	CU_ASSERT_STRING_EQUAL(p->configs[0].name, "replica=none+synchronous_commit=on");
	CU_ASSERT_STRING_EQUAL(p->configs[5].name, "replica=sync+synchronous_commit=off");
	CU_ASSERT_EQUAL(p->configs[0].replica, DUT_REPLICA_NONE);
	CU_ASSERT_EQUAL(p->configs[3].replica, DUT_REPLICA_ASYNC);
	CU_ASSERT_EQUAL(p->configs[5].replica, DUT_REPLICA_SYNC);
	CU_ASSERT_FALSE(p->configs[0].targets[1].holds_replica);
	CU_ASSERT_EQUAL(p->configs[0].targets[1].space_bytes, 0);
	CU_ASSERT(p->configs[5].targets[1].holds_replica);
	CU_ASSERT_EQUAL(p->configs[5].nsettings, 1);
	CU_ASSERT_STRING_EQUAL(p->configs[5].settings[0].value, "off");
	/* replica setup 15 s more; 1000 tx x 3 clients at 300 tps = 10 s */
	CU_ASSERT_EQUAL(p->configs[5].setup_ns - p->configs[0].setup_ns, 15 * S);
	CU_ASSERT_EQUAL(p->items[2].est_ns, 10 * S);
	dut_plan_free(p);
	dut_experiment_free(e);
}

static const char probe_text[] =
	"[target dev]\ntype = device\npath = /dev/sdz\ndestructive = yes\n"
	"[target img]\ntype = image\npath = /var/tmp/i.img\nsize = 1GiB\nfilesystem = xfs\n"
	"[step id]\ntype = identify\n"
	"[step cache]\ntype = slc\nraw = yes\nspan = 1000MiB\nidle = 10s\n"
	"[step iops]\ntype = fill\nraw = yes\nlevels = 30%, 8GiB\nqd = 1,4\nround-time = 2s\nmax-rounds = 5\nspan = 100MiB\n"
	"[step seq]\ntype = bench\ntarget = img\nsize = 256M\nrows = SEQ1M Q8T1 R, RND4K Q1T1 R\ntime = 2s\nwarmup = 1s\nreps = 2\n";

static void test_probe_steps_estimates(void)
{
	struct dut_experiment *e = parse_ok(probe_text, "probe");
	struct dut_plan *p = NULL;

	if (!e)
		return;
	CU_ASSERT(e->targets[0].destructive);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_FALSE(p->configs[0].needs_cluster);
	CU_ASSERT_EQUAL_FATAL(p->nitems, 5);
	CU_ASSERT_EQUAL(p->items[1].est_ns, 2 * S);
	/* slc: 1000 MiB at 100 MiB/s, twice, plus 10 s idle */
	CU_ASSERT_EQUAL(p->items[2].est_ns, 30 * S);
	/* fill: 100 MiB at 100 MiB/s + 2 levels x 2 qd x 5 rounds x 2 s */
	CU_ASSERT_EQUAL(p->items[3].est_ns, 41 * S);
	/* bench: 2 rows x (1 s + 2 x 2 s) */
	CU_ASSERT_EQUAL(p->items[4].est_ns, 10 * S);
	CU_ASSERT_EQUAL(p->configs[0].targets[1].space_bytes, 256ull << 20);
	CU_ASSERT_EQUAL(p->configs[0].setup_ns, 10 * S);  /* mkfs on img + teardown */
	dut_plan_free(p);
	dut_experiment_free(e);
}

static const char dss_text[] =
	"[target t]\ntype = image\npath = /var/tmp/d.img\nsize = 4G\nfilesystem = ext4-journal\n"
	"[step tpch]\ntype = dss\nscale = 0.1\nphases = load, keys, analyze, queries\nqueries = 1,3-5,22\n"
	"[step restore]\ntype = restore\nformat = directory\njobs = 2\n";

static void test_dss_and_restore(void)
{
	struct dut_experiment *e = parse_ok(dss_text, "dss");
	struct dut_plan *p = NULL;
	const uint64_t db = (uint64_t)(0.1 * (3ull << 29)) + 1;   /* ceil */

	if (!e)
		return;
	CU_ASSERT_DOUBLE_EQUAL(dut_step_param(&e->steps[0], "scale")->d, 0.1, 1e-12);
	CU_ASSERT_EQUAL(dut_step_param(&e->steps[0], "queries")->u, 3);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	/* a fixed 1 s per phase plus per SF: (1 + 2) + (1 + 4) + (1 + 8) + (1 + 3) s */
	CU_ASSERT(p->items[1].est_ns > 21 * S - S / 1000 && p->items[1].est_ns < 21 * S + S / 1000);
	CU_ASSERT_EQUAL(p->configs[0].targets[0].space_bytes,
			(64ull << 20) + (1ull << 30) + db + db + db / 3);
	dut_plan_free(p);
	dut_experiment_free(e);
}

static void test_plan_renderer_names_everything(void)
{
	struct dut_experiment *e = parse_ok(matrix_text, "matrix");
	struct dut_plan *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	static const char *const want[] = {
		"experiment fsm (t.ini): 6 configurations x 2 repetitions, 36 step runs, about 13m00s",
		"matrix filesystem: ext4-ordered, ext4-1k, xfs",
		"[3/6] ext4-1k+device: about 2m10s for 2 repetitions",
		"target img: image /var/tmp/x.img (2 GiB, through a loop device); filesystem ext4-1k (ext4, data=writeback, block size 1024, -o noatime)",
		"postgres: shared_buffers=128MB random_page_cost=1.1",
		"ro               oltp-run   ~40s     script=select-only@3, tpcb-like clients=4 threads=2 duration=20s  (x2 in a row)",
	};

	if (!e)
		return;
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(dutlab_run_print_plan(p, f), 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_CHECK(strstr(buf, want[i]) != NULL, "plan text lacks \"%s\":\n%s", want[i], buf);
	free(buf);
	dut_plan_free(p);
	dut_experiment_free(e);
}

/* ---- bad input: each row is a whole file and a fragment of the message ---- */

#define TGT "[target t]\ntype = directory\npath = /tmp/x\n"
#define IMG "[target t]\ntype = image\npath = /tmp/x.img\nsize = 1G\n"
#define RUN "[step r]\ntype = oltp-run\nduration = 10s\n"

static const struct bad_row {
	const char *name, *text, *msg;
} bad_rows[] = {
	{ "unknown_section", TGT RUN "[expriment]\n", "t.ini:7: unknown section \"[expriment]\" (did you mean \"experiment\"?)" },
	{ "unknown_key_did_you_mean", TGT "repetition = 2\n" RUN,
	  "t.ini:4: [target t]: unknown key \"repetition\"" },
	{ "unknown_key_suggests", "[experiment]\nrepetiton = 2\n" TGT RUN,
	  "t.ini:2: [experiment]: unknown key \"repetiton\" (did you mean \"repetitions\"?)" },
	{ "unknown_step_key", TGT "[step r]\ntype = oltp-run\nduraton = 10s\n",
	  "t.ini:6: [step r]: unknown key \"duraton\" (did you mean \"duration\"?)" },
	{ "unknown_step_type", TGT "[step r]\ntype = oltp-runn\n",
	  "t.ini:5: [step r]: type: expected identify, bench, slc, fill, oltp-init, oltp-run, dss, restore or crash, found \"oltp-runn\" (did you mean \"oltp-run\"?)" },
	{ "key_before_section", "name = x\n" TGT RUN, "t.ini:1: expected a section header" },
	{ "no_equals", TGT "path\n" RUN, "t.ini:4: expected \"key = value\"" },
	{ "indented_line", TGT "  more\n" RUN, "t.ini:4: expected a key, a [section] or a comment" },
	{ "unclosed_header", "[target t\n", "t.ini:1: expected \"]\" to close the section header" },
	{ "unnamed_target", "[target]\n", "t.ini:1: expected a name after \"[target\"" },
	{ "named_singleton", "[matrix m]\n", "t.ini:1: expected [matrix] without a name" },
	{ "duplicate_target", TGT RUN "[target t]\n", "t.ini:7: duplicate name: [target t] is already defined at line 1" },
	{ "duplicate_step", TGT RUN RUN, "t.ini:7: duplicate name: [step r] is already defined at line 4" },
	{ "duplicate_singleton", "[dutfs]\n" TGT "[dutfs]\n" RUN, "t.ini:5: duplicate section: [dutfs] is already at line 1" },
	{ "duplicate_key", TGT "path = /y\n" RUN, "t.ini:4: [target t]: path is already set at line 3" },
	{ "duplicate_setting", "[postgres]\nset = a=1\nset = a = 2\n" TGT RUN, "t.ini:3: [postgres]: set: a is already set at line 2" },
	{ "missing_type", "[target t]\npath = /x\n" RUN, "t.ini:1: [target t]: missing key type (directory, image or device)" },
	{ "missing_path", "[target t]\ntype = image\n" RUN, "t.ini:1: [target t]: missing key path" },
	{ "image_without_size", "[target t]\ntype = image\npath = /x.img\n" RUN, "t.ini:1: [target t]: missing key size" },
	{ "image_bad_size", "[target t]\ntype = image\npath = /x.img\nsize = 4 parsecs\n" RUN,
	  "t.ini:4: [target t]: size: expected a size from 64 MiB to 1 PiB (such as 512M, 4GiB), found \"4 parsecs\"" },
	{ "size_on_directory", TGT "size = 1G\n" RUN, "t.ini:4: [target t]: size: only an image target has a size" },
	{ "device_without_destructive", "[target d]\ntype = device\npath = /dev/sdz\n" RUN,
	  "t.ini:1: [target d]: device /dev/sdz: expected destructive = yes (everything on the device is lost), found no destructive key" },
	{ "device_destructive_no", "[target d]\ntype = device\npath = /dev/sdz\ndestructive = no\n" RUN,
	  "t.ini:4: [target d]: device /dev/sdz: expected destructive = yes (everything on the device is lost), found destructive = no" },
	{ "device_not_in_dev", "[target d]\ntype = device\npath = /tmp/sdz\ndestructive = yes\n" RUN,
	  "t.ini:3: [target d]: path: expected a block device or partition under /dev/" },
	{ "destructive_on_image", IMG "destructive = yes\n" RUN, "t.ini:5: [target t]: destructive: only a device target needs it" },
	{ "bad_bool", IMG "[dutfs]\ntrace = maybe\n" RUN, "t.ini:6: [dutfs]: trace: expected yes or no, found \"maybe\"" },
	{ "bad_view", TGT "[dutfs]\nview = sycall\n" RUN,
	  "t.ini:5: [dutfs]: view: expected device, syscall or off, found \"sycall\" (did you mean \"syscall\"?)" },
	{ "data_on_xfs", "[filesystem f]\ntype = xfs\ndata = journal\n" IMG RUN, "t.ini:3: [filesystem f]: data: only ext4 has a data= journaling mode" },
	{ "bad_ext4_mode", "[filesystem f]\ntype = ext4\ndata = jornal\n" IMG RUN,
	  "t.ini:3: [filesystem f]: data: expected ordered, writeback or journal, found \"jornal\" (did you mean \"journal\"?)" },
	{ "bad_block_size", "[filesystem f]\ntype = xfs\nblock-size = 3k\n" IMG RUN,
	  "t.ini:3: [filesystem f]: block-size: expected a power of two from 1024 to 4096 bytes for xfs" },
	{ "btrfs_small_block", "[filesystem f]\ntype = btrfs\nblock-size = 1k\n" IMG RUN, "block-size: expected a power of two from 4096 to 4096" },
	{ "shell_in_options", "[filesystem f]\ntype = ext4\nmkfs-options = -E x;rm\n" IMG RUN, "t.ini:3: [filesystem f]: mkfs-options: expected plain options" },
	{ "builtin_fs_name", "[filesystem xfs]\ntype = xfs\n" IMG RUN, "t.ini:1: [filesystem xfs]: \"xfs\" is a built-in filesystem" },
	{ "unknown_fs_in_matrix", IMG "[matrix]\nfilesystem = ext4-orderd\n" RUN,
	  "t.ini:6: [matrix]: filesystem: expected a built-in filesystem (none, ext4-ordered, ext4-writeback, ext4-journal, xfs, btrfs) or a [filesystem NAME], found \"ext4-orderd\" (did you mean \"ext4-ordered\"?)" },
	{ "unknown_target_fs", IMG "filesystem = zfs\n" RUN, "t.ini:5: [target t]: filesystem: expected a built-in filesystem or a [filesystem NAME], found \"zfs\"" },
	{ "fs_on_directory", TGT "[matrix]\nfilesystem = xfs, none\n" RUN,
	  "t.ini:5: configuration xfs: [target t] is a directory (/tmp/x); expected filesystem none there, found xfs" },
	{ "cluster_on_bare_image", IMG RUN, "t.ini:1: configuration default: the data directory on [target t], a image with filesystem none" },
	{ "image_too_small", "[target t]\ntype = image\npath = /x.img\nsize = 1G\nfilesystem = xfs\n[step i]\ntype = oltp-init\nscale = 100\n",
	  "t.ini:1: configuration default: [target t] is too small: expected about 2.53 GiB on it" },
	{ "matrix_too_big", IMG "[matrix]\nset.a = 1,2,3,4,5,6,7,8\nset.b = 1,2,3,4,5,6,7,8\nset.c = 1,2,3,4,5\n" RUN,
	  "t.ini:8: [matrix]: the matrix expands to more than 256 configurations (8 set.a x 8 set.b x 5 set.c); expected at most 256" },
	{ "matrix_duplicate_value", IMG "[matrix]\nview = device, device\n" RUN, "t.ini:6: [matrix]: view: duplicate value \"device\"" },
	{ "matrix_empty_value", IMG "[matrix]\nview = device,,syscall\n" RUN, "t.ini:6: [matrix]: view: expected comma-separated values" },
	{ "matrix_and_base", TGT "[dutfs]\nview = device\n[matrix]\nview = device, syscall\n" RUN,
	  "t.ini:7: [matrix]: view is also set at line 5; a [matrix] key replaces it, so set it in one place" },
	{ "matrix_set_and_base", TGT "[postgres]\nset = work_mem = 4MB\n[matrix]\nset.work_mem = 1MB, 64MB\n" RUN,
	  "t.ini:7: [matrix]: set.work_mem: work_mem is also set at line 5" },
	{ "matrix_unknown_key", TGT "[matrix]\nfilesytem = xfs\n" RUN, "t.ini:5: [matrix]: unknown key \"filesytem\" (did you mean \"filesystem\"?)" },
	{ "replica_without_section", TGT "[matrix]\nreplica = none, sync\n" RUN,
	  "t.ini:5: configuration replica=sync: replica sync needs a [replica] section" },
	{ "replica_same_target", TGT "[replica]\ntarget = t\n" RUN, "t.ini:5: [replica]: target: the standby needs its own mount" },
	{ "replica_unknown_target", TGT "[replica]\ntarget = stanby\n" RUN, "t.ini:5: [replica]: target: expected the name of a [target NAME], found \"stanby\"" },
	{ "tablespace_unknown_target", TGT "[tablespace fast]\ntarget = fats\n" RUN, "t.ini:5: [tablespace fast]: target: expected the name of a [target NAME], found \"fats\"" },
	{ "tablespace_bad_name", TGT "[tablespace pg_x]\ntarget = t\n" RUN, "t.ini:4: [tablespace pg_x]: expected a tablespace name" },
	{ "tables_on_unknown", TGT "[step i]\ntype = oltp-init\nscale = 1\ntables-on = fast\n",
	  "t.ini:7: [step i]: tables-on: expected \"default\" or a [tablespace NAME] of this file, found \"fast\"" },
	{ "matrix_placement_and_step", TGT "[tablespace a]\ntarget = t\n[matrix]\ntables-on = default, a\n[step i]\ntype = oltp-init\nscale = 1\ntables-on = a\n",
	  "t.ini:11: [step i]: tables-on is also a [matrix] key" },
	{ "placement_without_init", TGT "[tablespace a]\ntarget = t\n[matrix]\ntables-on = default, a\n" RUN,
	  "t.ini:7: [matrix]: tables-on and indexes-on place the pgbench tables, but there is no oltp-init step" },
	{ "missing_scale", TGT "[step i]\ntype = oltp-init\n", "t.ini:4: [step i]: missing key scale" },
	{ "scale_out_of_range", TGT "[step i]\ntype = oltp-init\nscale = 0\n", "t.ini:6: [step i]: scale: expected a whole number from 1 to 100000, found \"0\"" },
	{ "scale_not_a_number", TGT "[step i]\ntype = oltp-init\nscale = 10x\n", "t.ini:6: [step i]: scale: expected a whole number from 1 to 100000, found \"10x\"" },
	{ "dss_scale_range", TGT "[step d]\ntype = dss\nscale = 5000\n", "t.ini:6: [step d]: scale: expected a number from 0.001 to 1000, found \"5000\"" },
	{ "dss_bad_phase", TGT "[step d]\ntype = dss\nscale = 1\nphases = load, analyse\n",
	  "t.ini:7: [step d]: phases: expected load, keys, analyze, queries, rf or all, found \"analyse\" (did you mean \"analyze\"?)" },
	{ "dss_bad_query", TGT "[step d]\ntype = dss\nscale = 1\nqueries = 1,5-3\n", "t.ini:7: [step d]: queries: expected a query number or range from 1 to 22" },
	{ "dss_query_23", TGT "[step d]\ntype = dss\nscale = 1\nqueries = 23\n", "found \"23\"" },
	{ "run_without_duration", TGT "[step r]\ntype = oltp-run\n", "t.ini:4: [step r]: expected exactly one of duration or transactions, found neither" },
	{ "run_with_both", TGT "[step r]\ntype = oltp-run\nduration = 1s\ntransactions = 5\n", "t.ini:7: [step r]: expected exactly one of duration or transactions, found both" },
	{ "run_fraction_of_second", TGT "[step r]\ntype = oltp-run\nduration = 1500ms\n", "t.ini:6: [step r]: duration: expected whole seconds, found \"1500ms\"" },
	{ "run_duration_unit", TGT "[step r]\ntype = oltp-run\nduration = 10 sec\n", "t.ini:6: [step r]: duration: expected a duration from 1 s to 24 h" },
	{ "threads_over_clients", TGT "[step r]\ntype = oltp-run\nduration = 1s\nclients = 2\nthreads = 4\n", "t.ini:8: [step r]: threads: expected at most clients (2), found 4" },
	{ "bad_script", TGT "[step r]\ntype = oltp-run\nduration = 1s\nscript = select-onyl\n", "found \"select-onyl\" (did you mean \"select-only\"?)" },
	{ "bad_weight", TGT "[step r]\ntype = oltp-run\nduration = 1s\nscript = tpcb-like@0\n", "expected a weight from 1 to 1000 after \"@\", found \"tpcb-like@0\"" },
	{ "bad_protocol", TGT "[step r]\ntype = oltp-run\nduration = 1s\nprotocol = fast\n", "t.ini:7: [step r]: protocol: expected simple, extended or prepared, found \"fast\"" },
	{ "restore_plain_jobs", TGT "[step x]\ntype = restore\nformat = plain\njobs = 4\n", "t.ini:7: [step x]: jobs: a plain dump restores with psql" },
	{ "probe_without_size", TGT "[step b]\ntype = bench\n", "t.ini:4: [step b]: missing key size (the size of the probe file dutprobe.dat" },
	{ "probe_raw_with_size", IMG "[step b]\ntype = bench\nraw = yes\nsize = 1G\n", "t.ini:8: [step b]: size: a raw probe uses the whole target" },
	{ "probe_raw_on_directory", TGT "[step b]\ntype = fill\nraw = yes\n", "t.ini:4: [step b]: configuration default: raw = yes writes over all of [target t]" },
	{ "probe_raw_on_filesystem", IMG "filesystem = xfs\n[step b]\ntype = slc\nraw = yes\n", "t.ini:6: [step b]: configuration default: raw = yes writes over all of [target t]; expected an image or device target with filesystem none, found a image with xfs" },
	{ "probe_file_on_bare_image", IMG "[step b]\ntype = bench\nsize = 100M\n", "t.ini:5: [step b]: configuration default: the probe file needs a filesystem" },
	{ "probe_file_with_slash", TGT "[step b]\ntype = bench\nsize = 100M\nfile = ../x\n", "t.ini:7: [step b]: file: expected a file name on the target" },
	{ "fill_bad_level", TGT "[step b]\ntype = fill\nsize = 1G\nlevels = 30%, 120%\n", "t.ini:7: [step b]: levels: expected a fill level above 0% and at most 100%, found \"120%\"" },
	{ "fill_bad_qd", TGT "[step b]\ntype = fill\nsize = 1G\nqd = 1, 0\n", "t.ini:7: [step b]: qd: expected a whole number from 1 to 1024, found \"0\"" },
	{ "target_on_pgload_step", TGT "[step r]\ntype = oltp-run\nduration = 1s\ntarget = t\n", "t.ini:7: [step r]: target: a oltp-run step runs on the cluster" },
	{ "step_target_unknown", TGT "[step b]\ntype = bench\nsize = 1G\ntarget = u\n", "t.ini:7: [step b]: target: expected the name of a [target NAME], found \"u\"" },
	{ "order_unknown", "[experiment]\nrepetitions = 2\norder = random\n" TGT RUN,
	  "t.ini:3: [experiment]: order: expected interleaved or sequential, found \"random\"" },
	{ "order_misspelt", "[experiment]\norder = interleave\n" TGT RUN,
	  "t.ini:2: [experiment]: order: expected interleaved or sequential, found \"interleave\" (did you mean \"interleaved\"?)" },
	{ "order_empty", "[experiment]\norder =\n" TGT RUN, "t.ini:2: [experiment]: order: expected interleaved or sequential, found \"\"" },
	{ "order_twice", "[experiment]\norder = sequential\norder = interleaved\n" TGT RUN,
	  "t.ini:3: [experiment]: order is already set at line 2" },
	{ "order_elsewhere", TGT "order = sequential\n" RUN, "t.ini:4: [target t]: unknown key \"order\"" },
	{ "repetitions_range", "[experiment]\nrepetitions = 0\n" TGT RUN, "t.ini:2: [experiment]: repetitions: expected a whole number from 1 to 100, found \"0\"" },
	{ "repeat_range", TGT "[step r]\ntype = oltp-run\nduration = 1s\nrepeat = 1001\n", "t.ini:7: [step r]: repeat: expected a whole number from 1 to 1000" },
	{ "no_target", RUN, "expected at least one [target NAME]" },
	{ "no_step", TGT, "expected at least one [step NAME]" },
	{ "same_path_twice", TGT "[target u]\ntype = directory\npath = /tmp/x\n" RUN, "t.ini:6: [target u]: path /tmp/x is also the path of [target t] at line 1" },
	{ "bad_set_line", TGT "[postgres]\nset = shared buffers = 1\n" RUN, "t.ini:5: [postgres]: set: expected NAME = VALUE" },
	{ "setting_value_control_char", TGT "[postgres]\nset = work_mem = 4MB\x01listen_addresses = '*'\n" RUN,
	  "t.ini:5: [postgres]: set: the value of work_mem has a control character" },
	{ "setting_value_escape", TGT "[postgres]\nset = work_mem = 4MB\x1b[2J\n" RUN,
	  "t.ini:5: [postgres]: set: the value of work_mem has a control character" },
	{ "matrix_setting_value_control_char", TGT "[matrix]\nset.work_mem = 1MB, 4MB\x7f\n" RUN,
	  "t.ini:5: [matrix]: set.work_mem: expected comma-separated values" },
	{ "pg_memory_too_small", TGT "[postgres]\nmemory = 16MiB\n" RUN,
	  "t.ini:5: [postgres]: memory: expected the server's memory budget, a size of at least 32MiB" },
	{ "pg_memory_below_default_shared_buffers", TGT "[postgres]\nmemory = 32MiB\n" RUN,
	  "t.ini:5: configuration default: memory = 32 MiB is too small for shared_buffers = 8 MiB (budget/4, the default "
	  "with a budget): expected at least 40 MiB" },
	{ "pg_memory_below_matrix_shared_buffers", TGT "[postgres]\nmemory = 64MiB\n[matrix]\nset.shared_buffers = 16MB, 48MB\n" RUN,
	  "t.ini:5: configuration shared_buffers=48MB: memory = 64 MiB is too small for shared_buffers = 48 MiB: expected at least 80 MiB" },
	{ "pg_memory_shared_buffers_unreadable", TGT "[postgres]\nmemory = 64MiB\nset = shared_buffers = lots\n" RUN,
	  "t.ini:5: configuration default: memory: shared_buffers = lots is not a size" },
	{ "pg_memory_not_a_size", TGT "[postgres]\nmemory = lots\n" RUN, "t.ini:5: [postgres]: memory: expected" },
	{ "pg_version_and_bindir", TGT "[postgres]\nversion = 17\nbindir = /opt/pg17/bin\n" RUN,
	  "t.ini:6: [postgres]: version (line 5) and bindir name the PostgreSQL to use twice; give one of them" },
	{ "pg_version_too_old", TGT "[postgres]\nversion = 12\n" RUN,
	  "t.ini:5: [postgres]: version: PostgreSQL 12 is older than dutlab supports (13 and later)" },
	{ "pg_version_minor", TGT "[postgres]\nversion = 17.2\n" RUN,
	  "t.ini:5: [postgres]: version: expected a PostgreSQL major such as 17 (the installed minor release is used), found \"17.2\"" },
	{ "pg_version_word", TGT "[postgres]\nversion = latest\n" RUN, "t.ini:5: [postgres]: version: expected a PostgreSQL major" },
	{ "pg_bindir_relative", TGT "[postgres]\nbindir = pg/bin\n" RUN,
	  "t.ini:5: [postgres]: bindir: expected an absolute directory with initdb, pg_ctl and postgres" },
	{ "pg_bindir_dotdot", TGT "[postgres]\nbindir = /opt/../bin\n" RUN, "t.ini:5: [postgres]: bindir: expected a plain absolute path" },
	{ "pg_bindir_dot", TGT "[postgres]\nbindir = /opt/./bin\n" RUN, "t.ini:5: [postgres]: bindir: expected a plain absolute path" },
	{ "pg_bindir_trailing_dotdot", TGT "[postgres]\nbindir = /opt/bin/..\n" RUN, "t.ini:5: [postgres]: bindir: expected a plain absolute path" },
	{ "matrix_version_too_old", TGT "[matrix]\nversion = 15, 11\n" RUN,
	  "t.ini:5: [matrix]: version: PostgreSQL 11 is older than dutlab supports (13 and later)" },
	{ "matrix_version_and_base", TGT "[postgres]\nversion = 15\n[matrix]\nversion = 15, 16\n" RUN,
	  "t.ini:7: [matrix]: version: [postgres] version at line 5 already names the PostgreSQL to use; give it in one place" },
	{ "matrix_version_and_bindir", TGT "[postgres]\nbindir = /opt/pg/bin\n[matrix]\nversion = 15, 16\n" RUN,
	  "t.ini:7: [matrix]: version: [postgres] bindir at line 5 already names" },
	{ "matrix_version_duplicate", TGT "[matrix]\nversion = 15, 15\n" RUN, "t.ini:5: [matrix]: version: duplicate value \"15\"" },
	{ "trace_max_not_a_size", TGT "[dutfs]\ntrace-max = lots\n" RUN,
	  "t.ini:5: [dutfs]: trace-max: expected the most disk each trace may use, a size such as 512MiB or 8GiB (or none), found \"lots\"" },
	{ "trace_max_too_small", TGT "[dutfs]\ntrace-max = 3M\n" RUN,
	  "t.ini:5: [dutfs]: trace-max: 3M is too small for 4 segments of at least 1 MiB (give at least 4MiB, or fewer trace-segments)" },
	{ "trace_max_too_small_for_segments", TGT "[dutfs]\ntrace-max = 8M\ntrace-segments = 16\n" RUN,
	  "t.ini:5: [dutfs]: trace-max: 8M is too small for 16 segments of at least 1 MiB (give at least 16MiB" },
	{ "trace_segments_alone", TGT "[dutfs]\ntrace-segments = 8\n" RUN,
	  "t.ini:5: [dutfs]: trace-segments only serves trace-max: give trace-max = SIZE too" },
	{ "trace_segments_one", TGT "[dutfs]\ntrace-max = 8M\ntrace-segments = 1\n" RUN,
	  "t.ini:6: [dutfs]: trace-segments: expected a number of segments from 2 to 64, found \"1\"" },
	{ "trace_max_without_trace", TGT "[dutfs]\ntrace = no\ntrace-max = 8M\n" RUN,
	  "t.ini:6: [dutfs]: trace-max bounds the trace, but trace = no writes none" },
	{ "trace_max_underscore", TGT "[dutfs]\ntrace_max = 8M\n" RUN,
	  "t.ini:5: [dutfs]: unknown key \"trace_max\" (did you mean \"trace-max\"?)" },
	{ "progress_too_short", "[experiment]\nprogress = 0.5s\n" TGT RUN,
	  "t.ini:2: [experiment]: progress: expected how often a running step prints a progress line, a duration from 1s to 24h" },
	{ "report_every_too_short", "[experiment]\nreport-every = 5s\n" TGT RUN,
	  "t.ini:2: [experiment]: report-every: expected how often report.md is rewritten while a step runs, a duration from 10s to 24h" },
	{ "pg_target_unknown", TGT "[postgres]\ntarget = main\n" RUN, "t.ini:5: [postgres]: target: expected the name of a [target NAME], found \"main\"" },
	{ "nul_byte", TGT "x\0y\n" RUN, "t.ini:4: expected text, found a NUL byte" },
	{ "too_many_runs", TGT "[experiment]\nrepetitions = 100\n[matrix]\nset.a = 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\n[step r]\ntype = oltp-run\nduration = 1s\nrepeat = 100\n",
	  "the plan has 202000 setups and step runs (20 configurations x 100 repetitions x (1 setup + 100 step runs)); expected at most 100000" },
};

/* [dutfs] trace-max/trace-segments and [experiment] progress/report-every are kept */
static void test_soak_keys(void)
{
	struct dut_experiment *e = parse_ok("[experiment]\nprogress = 30s\nreport-every = 10m\n" TGT
					    "[dutfs]\ntrace-max = 2GiB\ntrace-segments = 8\n" RUN, "soak keys");

	if (e) {
		CU_CHECK(e->trace_max_bytes == 2ull << 30 && e->trace_segments == 8, "trace-max %llu in %u",
			 (unsigned long long)e->trace_max_bytes, e->trace_segments);
		CU_CHECK(e->progress_ns == 30 * S && e->report_every_ns == 600 * S, "progress %llu, report-every %llu",
			 (unsigned long long)e->progress_ns, (unsigned long long)e->report_every_ns);
		dut_experiment_free(e);
	}
	e = parse_ok(TGT "[dutfs]\ntrace-max = none\n" RUN, "trace-max none");
	if (e) {
		CU_CHECK(e->trace_max_bytes == 0 && e->trace_segments == 0 && e->progress_ns == 0, "defaults");
		dut_experiment_free(e);
	}
}

static void test_postgres_memory(void)
{
	static const struct { const char *value; uint64_t bytes; } rows[] = {
		{ "96MiB", 96ull << 20 }, { "1GiB", 1ull << 30 }, { "none", 0 }, { "43M", 43ull << 20 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) + 1; i++) {
		char text[256];
		struct dut_experiment *e;

		if (i == sizeof(rows) / sizeof(rows[0])) {
			/* 40 MiB holds shared_buffers = 4MB + 32 MiB (the placement experiment) */
			e = parse_ok(TGT "[postgres]\nmemory = 40MiB\nset = shared_buffers = 4MB\n" RUN, "40MiB+4MB");
			if (e)
				dut_experiment_free(e);
			continue;
		}

		snprintf(text, sizeof(text), TGT "[postgres]\nmemory = %s\n" RUN, rows[i].value);
		if (!(e = parse_ok(text, rows[i].value)))
			continue;
		CU_CHECK(e->pg_memory_bytes == rows[i].bytes, "memory = %s: %llu", rows[i].value,
			 (unsigned long long)e->pg_memory_bytes);
		dut_experiment_free(e);
	}
}

/* [postgres] version/bindir and [matrix] version reach every configuration */
static void test_postgres_version_and_bindir(void)
{
	struct dut_experiment *e;
	struct dut_plan *p = NULL;

	if ((e = parse_ok(TGT RUN, "neither"))) {
		CU_ASSERT_EQUAL(e->pg_major, 0);
		CU_ASSERT_PTR_NULL(e->pg_bindir);
		dut_experiment_free(e);
	}
	if ((e = parse_ok(TGT "[postgres]\nversion = 17\n" RUN, "version"))) {
		CU_ASSERT_EQUAL(e->pg_major, 17);
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		CU_ASSERT_EQUAL(p->configs[0].pg_major, 17);
		CU_ASSERT_PTR_NULL(p->configs[0].pg_bindir);
		dut_plan_free(p);
		dut_experiment_free(e);
	}
	if ((e = parse_ok(TGT "[postgres]\nbindir = /opt/pg/17/bin//\n" RUN, "bindir"))) {
		CU_ASSERT_EQUAL(e->pg_major, 0);
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		CU_ASSERT_STRING_EQUAL(p->configs[0].pg_bindir, "/opt/pg/17/bin");
		dut_plan_free(p);
		dut_experiment_free(e);
	}
	/* the major as a matrix axis beside a setting: names pgNN, the major in each */
	e = parse_ok(TGT "[matrix]\nversion = 15, 18\nset.io_method = sync, worker\n" RUN, "matrix");
	if (!e)
		return;
	CU_ASSERT_EQUAL(e->ndims, 2);
	CU_ASSERT_EQUAL(e->dims[0].kind, DUT_DIM_VERSION);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 4);
	CU_ASSERT_STRING_EQUAL(p->configs[0].name, "pg15+io_method=sync");
	CU_ASSERT_STRING_EQUAL(p->configs[3].name, "pg18+io_method=worker");
	CU_ASSERT_EQUAL(p->configs[0].pg_major, 15);
	CU_ASSERT_EQUAL(p->configs[1].pg_major, 15);
	CU_ASSERT_EQUAL(p->configs[2].pg_major, 18);
	CU_ASSERT_EQUAL(p->configs[3].nsettings, 1);
	CU_ASSERT_STRING_EQUAL(p->configs[3].settings[0].name, "io_method");
	CU_ASSERT_STRING_EQUAL(p->configs[3].settings[0].value, "worker");
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		CU_ASSERT_FATAL(f != NULL);
		dutlab_run_print_plan(p, f);
		fclose(f);
		CU_CHECK(strstr(text, "PostgreSQL 18; replica none") != NULL, "plan: %s", text);
		free(text);
	}
	dut_plan_free(p);
	dut_experiment_free(e);
}

static void test_bad_input_cites_the_line(void)
{
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		const struct bad_row *row = &bad_rows[i];
		struct dut_experiment *e = (struct dut_experiment *)&e;   /* sentinel */
		struct dut_error err = { "" };
		/* the NUL row carries its byte inside the text */
		size_t len = strcmp(row->name, "nul_byte") == 0 ? strlen(row->text) + 1 + strlen(row->text + strlen(row->text) + 1)
								: strlen(row->text);
		int r = dut_experiment_parse(row->text, len, "t.ini", &e, &err);

		CU_CHECK(r == -EINVAL, "%s: expected -EINVAL, found %d", row->name, r);
		CU_CHECK(e == (struct dut_experiment *)&e, "%s: the result was written on error", row->name);
		CU_CHECK(strstr(err.msg, row->msg) != NULL, "%s: expected \"%s\" in \"%s\"", row->name, row->msg, err.msg);
		CU_CHECK(strncmp(err.msg, "t.ini:", 6) == 0 && err.msg[6] >= '1' && err.msg[6] <= '9',
			 "%s: message does not start with file:line: \"%s\"", row->name, err.msg);
		if (r == 0)
			dut_experiment_free(e);
	}
}

static void test_load_reports_missing_file(void)
{
	struct dut_experiment *e = NULL;
	struct dut_error err = { "" };

	CU_ASSERT_EQUAL(dut_experiment_load("/nonexistent/x.ini", &e, &err), -ENOENT);
	CU_ASSERT_PTR_NULL(e);
	CU_CHECK(strstr(err.msg, "/nonexistent/x.ini: cannot read the experiment") != NULL, "message: %s", err.msg);
}

/* A shape rules file named by an experiment exists and parses. */
static void check_shape(const struct dut_experiment *e, const char *file, const char *rules)
{
	char path[4352];
	struct shape_rules *rs = NULL;
	struct dut_error err = { "" };

	if (!rules || strcmp(rules, "none") == 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", e->base_dir, rules);
	CU_CHECK(shape_rules_load(path, &rs, &err) == 0, "%s: shape %s: %s", file, rules, err.msg);
	shape_rules_free(rs);
}

/* Every shipped experiment parses, validates, and fits the 15-minute budget. */
static void test_shipped_experiments_parse_and_fit_15_minutes(void)
{
	char dir[4096];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	unsigned n = 0;

	snprintf(dir, sizeof(dir), "%s/tools/experiments", cu_source_root());
	d = opendir(dir);
	CU_CHECK(d != NULL, "cannot open %s (DUT_SOURCE_ROOT)", dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[4352];
		struct dut_experiment *e = NULL;
		struct dut_plan *p = NULL;
		struct dut_error err = { "" };
		int r;

		if (l < 5 || strcmp(de->d_name + l - 4, ".ini") != 0)
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		r = dut_experiment_load(path, &e, &err);
		CU_CHECK(r == 0, "%s: %s", de->d_name, err.msg);
		if (r)
			continue;
		CU_CHECK(e->description != NULL, "%s: no description", de->d_name);
		check_shape(e, de->d_name, e->shape);
		for (size_t i = 0; i < e->ntargets; i++)
			check_shape(e, de->d_name, e->targets[i].shape);
		for (size_t i = 0; i < e->ndims; i++)
			for (size_t j = 0; e->dims[i].kind == DUT_DIM_SHAPE && j < e->dims[i].nvalues; j++)
				check_shape(e, de->d_name, e->dims[i].values[j]);
		CU_CHECK(dut_experiment_plan(e, &p) == 0, "%s: plan failed", de->d_name);
		if (p && strcmp(de->d_name, "soak.ini") == 0) {
			/* the soak is meant to run all night, and to bound its trace */
			CU_CHECK(p->est_ns >= 4 * 3600 * S && e->trace_max_bytes && e->progress_ns && e->report_every_ns,
				 "soak.ini: expected hours, trace-max, progress and report-every");
		} else if (p) {
			CU_CHECK(p->est_ns <= 15 * 60 * S, "%s: estimated %llu s, expected at most 15 min", de->d_name,
				 (unsigned long long)(p->est_ns / S));
			for (size_t i = 0; i < e->ntargets; i++)
				CU_CHECK(e->targets[i].type == DUT_TARGET_IMAGE || e->targets[i].type == DUT_TARGET_DIRECTORY,
					 "%s: a shipped experiment must not name a device", de->d_name);
		}
		dut_plan_free(p);
		dut_experiment_free(e);
	}
	CU_CHECK(n >= 6, "expected at least 6 shipped experiments (one per field report), found %u", n);
}

/*
 * The plan's estimate of each shipped experiment is within 2x of the time it
 * took, run in full on the 2-core reference machine (wall time of `dutlab run`,
 * 2026-12-01): the fastest and the slowest run measured, from a load average
 * of about 5 to 8-23 with other work on the machine.
 */
static void test_shipped_estimates_within_2x_of_measured(void)
{
	static const struct { const char *file; unsigned fast_s, slow_s; } runs[] = {
		{ "fs-dss.ini", 86, 235 },
		{ "slc-restore.ini", 123, 162 },
		{ "hot-standby.ini", 409, 509 },
		{ "placement.ini", 386, 393 },
		{ "fs-oltp.ini", 559, 696 },
		{ "fill-iops.ini", 234, 249 },
		{ "fs-oltp-blocksize.ini", 654, 654 },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct dut_experiment *e = NULL;
		struct dut_plan *p = NULL;
		struct dut_error err = { "" };
		char path[4352];
		double est_s;

		snprintf(path, sizeof(path), "%s/tools/experiments/%s", cu_source_root(), runs[i].file);
		CU_CHECK(dut_experiment_load(path, &e, &err) == 0, "%s: %s", runs[i].file, err.msg);
		if (!e)
			continue;
		CU_CHECK(dut_experiment_plan(e, &p) == 0, "%s: plan failed", runs[i].file);
		if (p) {
			est_s = (double)p->est_ns / S;
			CU_CHECK(est_s <= 2.0 * runs[i].fast_s && est_s >= runs[i].slow_s / 2.0,
				 "%s: estimated %.0f s, measured %u-%u s: not within 2x of both", runs[i].file,
				 est_s, runs[i].fast_s, runs[i].slow_s);
		}
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

static const struct cu_test tests[] = {
	{ "default_experiment_is_the_main_job", test_default_experiment_is_the_main_job },
	{ "matrix_expands_first_key_slowest", test_matrix_expands_first_key_slowest },
	{ "plan_order_interleaved_or_sequential", test_plan_order_interleaved_or_sequential },
	{ "placement_puts_space_on_the_tablespace_targets", test_placement_puts_space_on_the_tablespace_targets },
	{ "replica_modes_and_setting_dimension", test_replica_modes_and_setting_dimension },
	{ "probe_steps_estimates", test_probe_steps_estimates },
	{ "dss_and_restore", test_dss_and_restore },
	{ "plan_renderer_names_everything", test_plan_renderer_names_everything },
	{ "postgres_memory", test_postgres_memory },
	{ "soak_keys", test_soak_keys },
	{ "postgres_version_and_bindir", test_postgres_version_and_bindir },
	{ "bad_input_cites_the_line", test_bad_input_cites_the_line },
	{ "load_reports_missing_file", test_load_reports_missing_file },
	{ "shipped_experiments_parse_and_fit_15_minutes", test_shipped_experiments_parse_and_fit_15_minutes },
	{ "shipped_estimates_within_2x_of_measured", test_shipped_estimates_within_2x_of_measured },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "experiment", .tests = tests };
