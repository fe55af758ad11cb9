/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step types of an experiment: their parameters (key, kind, range, default,
 * the option of dutprobe/pgload it becomes), cross-parameter checks, and the
 * time and space estimates the planner adds up.  One table per type; the
 * parser and docs/experiment-format.md follow these tables.
 *
 * Estimates are for the 2-core reference machine and err on the long side:
 * they drive an ETA and a "not enough space" check, not a result.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "tools/run/experiment_priv.h"

#define NS_PER_S 1000000000ull
#define KiB 1024.0
#define MiB (1024.0 * 1024)
#define GiB (1024.0 * 1024 * 1024)
#define TiB (GiB * 1024)
#define PiB (TiB * 1024)

/* Write rate assumed for probe steps that write a span (slc, fill): the
 * slow end of what we test (USB/SATA SSD past its cache, a loop image). */
#define EXP_PROBE_WRITE_BPS (100.0 * MiB)
/* Size assumed for a whole device whose size is unknown until run time. */
#define EXP_UNKNOWN_DEVICE_BYTES (64ull << 30)
/* pgbench -i: load, vacuum, primary keys; ~1 s per scale unit on 2 cores. */
#define EXP_OLTP_INIT_NS_PER_SCALE (1ull * NS_PER_S)
/* oltp-run with -t: transactions per second assumed for the ETA. */
#define EXP_OLTP_ASSUMED_TPS 300.0
/*
 * DSS phases on 2 cores: a fixed cost (connections, the 22 plans, small
 * tables) plus seconds per scale factor.  Measured with fs-dss.ini (SF 0.05,
 * stats-target 1000, five filesystems, 2026-12-01): the whole run took 86 s
 * at load average 5 and 2m18s-3m55s at 8-23 (analyze with stats-target 1000
 * the phase that grows most with load: 7-33 s per configuration); these
 * constants put the estimate (2m42s with the setups) within 2x of both ends.
 */
static const double dss_s_fixed[] = { 1, 1, 1, 1, 1 };            /* load keys analyze queries rf */
static const double dss_s_per_sf[] = { 20, 40, 80, 30, 30 };
/* pg_dump + pg_restore (with index builds), bytes of database per second. */
#define EXP_RESTORE_BPS (20.0 * MiB)
/* A custom-format dump is compressed: about a third of the database. */
#define EXP_DUMP_FRACTION 3

static const char *const scripts[] = { "tpcb-like", "simple-update", "select-only", NULL };
static const char *const protocols[] = { "simple", "extended", "prepared", NULL };
static const char *const dss_phases[] = { "load", "keys", "analyze", "queries", "rf", "all", NULL };
static const char *const dss_params[] = { "default", "random", NULL };
static const char *const dump_formats[] = { "custom", "directory", "plain", NULL };
static const char *const crash_points[] = { "wal-write", "wal-fsync", "heap-write", "index-write", "pg_control",
					    "slru-write", "checkpoint", "time", NULL };
static const char *const crash_losses[] = { "lose-all", "lose-none", "subset", "torn", "fsync-eio", NULL };

#define PROBE_FILE_PARAMS                                                                        \
	{ .key = "file", .kind = DUT_P_STRING, .def = "dutprobe.dat",                                \
	  .help = "file on the target's filesystem the probe writes (not with raw = yes)" },         \
	{ .key = "size", .kind = DUT_P_SIZE, .flag = "--size", .min = MiB, .max = PiB,                \
	  .help = "size of that file (required unless raw = yes)" }

static const struct dut_param_spec bench_params[] = {
	{ .key = "rows", .kind = DUT_P_STRING, .flag = "--rows",
	  .help = "comma-separated row specs such as SEQ1M Q8T1 R (default: the six default rows)" },
	{ .key = "time", .kind = DUT_P_DURATION, .flag = "--time", .def = "5s", .min = 0.1, .max = 3600,
	  .help = "measured time per repetition of a row" },
	{ .key = "warmup", .kind = DUT_P_DURATION, .flag = "--warmup", .def = "1s", .min = 0, .max = 600,
	  .help = "warm-up before a row, not counted" },
	{ .key = "reps", .kind = DUT_P_UINT, .flag = "--reps", .def = "3", .min = 1, .max = 100,
	  .help = "repetitions per row, reported as median (min-max)" },
	{ .key = "read-only", .kind = DUT_P_BOOL, .flag = "--read-only", .def = "no",
	  .help = "drop the write rows" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "region the offsets cover (default: all of the file or device)" },
	PROBE_FILE_PARAMS,
};

static const struct dut_param_spec slc_params[] = {
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "how much to write (default: all of the file or device)" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "1M", .min = 4 * KiB, .max = 64 * MiB,
	  .help = "write size" },
	{ .key = "qd", .kind = DUT_P_UINT, .flag = "--qd", .def = "8", .min = 1, .max = 1024,
	  .help = "queue depth" },
	{ .key = "window", .kind = DUT_P_SIZE, .flag = "--window", .def = "64M", .min = MiB, .max = 64 * GiB,
	  .help = "one throughput sample per this many bytes written" },
	{ .key = "idle", .kind = DUT_P_DURATION, .flag = "--idle", .min = 1, .max = 86400,
	  .help = "then wait idle and write again: how much cache came back" },
	{ .key = "no-trim", .kind = DUT_P_BOOL, .flag = "--no-trim", .def = "no",
	  .help = "do not discard the span first" },
	PROBE_FILE_PARAMS,
};

static const struct dut_param_spec fill_params[] = {
	{ .key = "levels", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_LEVEL, .flag = "--levels",
	  .def = "30%,60%,90%", .help = "fill levels: percentages of the span, or sizes" },
	{ .key = "qd", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_UINT, .flag = "--qd", .def = "1,8,32",
	  .min = 1, .max = 1024, .help = "queue depths of the random writes" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "16K", .min = 512, .max = 64 * MiB,
	  .help = "random write size" },
	{ .key = "round-time", .kind = DUT_P_DURATION, .flag = "--round-time", .def = "10s", .min = 0.1,
	  .max = 3600, .help = "length of one round" },
	{ .key = "max-rounds", .kind = DUT_P_UINT, .flag = "--max-rounds", .def = "30", .min = 1, .max = 1000,
	  .help = "give up on steady state after this many rounds" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "the part of the target that counts as full (default: all)" },
	PROBE_FILE_PARAMS,
};

static const struct dut_param_spec oltp_init_params[] = {
	{ .key = "scale", .kind = DUT_P_UINT, .flag = "-s", .min = 1, .max = 100000, .required = true,
	  .help = "pgbench scale: 100,000 accounts and ~15 MiB per unit" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "--jobs", .min = 1, .max = 64,
	  .help = "parallel COPY connections (default: by CPU count)" },
	{ .key = "fillfactor", .kind = DUT_P_UINT, .flag = "--fillfactor", .min = 10, .max = 100,
	  .help = "fillfactor of the pgbench tables (default 100)" },
	{ .key = "tables-on", .kind = DUT_P_TABLESPACE, .flag = "--tables-on",
	  .help = "tablespace of the tables (or the [matrix] tables-on)" },
	{ .key = "indexes-on", .kind = DUT_P_TABLESPACE, .flag = "--indexes-on",
	  .help = "tablespace of the indexes (or the [matrix] indexes-on)" },
};

static const struct dut_param_spec oltp_run_params[] = {
	{ .key = "script", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE_WEIGHT, .flag = "-b",
	  .def = "tpcb-like", .choices = scripts, .help = "built-in scripts, each optionally @WEIGHT" },
	{ .key = "clients", .kind = DUT_P_UINT, .flag = "-c", .def = "1", .min = 1, .max = 1000,
	  .help = "client connections" },
	{ .key = "threads", .kind = DUT_P_UINT, .flag = "-j", .def = "1", .min = 1, .max = 1000,
	  .help = "client threads (at most clients)" },
	{ .key = "duration", .kind = DUT_P_DURATION, .flag = "-T", .min = 1, .max = 86400,
	  .help = "run time (whole seconds); this or transactions" },
	{ .key = "transactions", .kind = DUT_P_UINT, .flag = "-t", .min = 1, .max = 1e9,
	  .help = "transactions per client; this or duration" },
	{ .key = "rate", .kind = DUT_P_NUMBER, .flag = "-R", .min = 0.1, .max = 1e7,
	  .help = "target transactions per second (default: as fast as possible)" },
	{ .key = "protocol", .kind = DUT_P_CHOICE, .flag = "-M", .def = "simple", .choices = protocols,
	  .help = "query protocol" },
	{ .key = "progress", .kind = DUT_P_DURATION, .flag = "-P", .min = 1, .max = 3600,
	  .help = "progress report interval (whole seconds)" },
	{ .key = "max-tries", .kind = DUT_P_UINT, .flag = "--max-tries", .min = 1, .max = 100,
	  .help = "tries of a transaction that fails with a serialization error or deadlock" },
	{ .key = "seed", .kind = DUT_P_UINT, .flag = "--seed", .min = 0, .max = 4294967295.0,
	  .help = "seed of the random account ids" },
};

static const struct dut_param_spec dss_params_spec[] = {
	{ .key = "scale", .kind = DUT_P_NUMBER, .flag = "-s", .min = 0.001, .max = 1000, .required = true,
	  .help = "scale factor (1 = ~1 GiB of data, ~1.5 GiB with indexes)" },
	{ .key = "phases", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--phases",
	  .def = "load,keys,analyze,queries", .choices = dss_phases,
	  .help = "phases, timed separately" },
	{ .key = "queries", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_QUERIES, .flag = "--queries",
	  .min = 1, .max = 22, .help = "queries to run, e.g. 1,3-5,22 (default all 22)" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "-j", .min = 1, .max = 64,
	  .help = "generator threads (default 2)" },
	{ .key = "reps", .kind = DUT_P_UINT, .flag = "--reps", .def = "1", .min = 1, .max = 100,
	  .help = "runs of the query set" },
	{ .key = "timeout", .kind = DUT_P_DURATION, .flag = "--timeout", .min = 1, .max = 86400,
	  .help = "statement_timeout per query" },
	{ .key = "stats-target", .kind = DUT_P_UINT, .flag = "--stats-target", .min = 1, .max = 10000,
	  .help = "default_statistics_target for ANALYZE (default 1000)" },
	{ .key = "params", .kind = DUT_P_CHOICE, .flag = "--params", .choices = dss_params,
	  .help = "substitution parameters (default: the validation ones)" },
};

static const struct dut_param_spec restore_params[] = {
	{ .key = "dump", .kind = DUT_P_STRING, .def = "self",
	  .help = "\"self\": dump the database the steps before built, then time its restore; "
		  "or a dump file (relative to the experiment file)" },
	{ .key = "format", .kind = DUT_P_CHOICE, .flag = "--format", .def = "custom", .choices = dump_formats,
	  .help = "dump format" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "--jobs", .def = "1", .min = 1, .max = 64,
	  .help = "parallel restore jobs (custom and directory formats)" },
	{ .key = "database", .kind = DUT_P_STRING, .def = "restored",
	  .help = "database restored into (created empty first)" },
};

/* dutlab crash (docs/crash.md): the keys of its [crash] section */
static const struct dut_param_spec crash_params[] = {
	{ .key = "states", .kind = DUT_P_UINT, .flag = "--states", .def = "40", .min = 0, .max = 100000,
	  .help = "states with fsync honoured; each must come through undamaged" },
	{ .key = "controls", .kind = DUT_P_UINT, .flag = "--controls", .def = "2", .min = 0, .max = 1000,
	  .help = "states per negative control (full_page_writes=off, fsync=off); each control must see damage" },
	{ .key = "seed", .kind = DUT_P_UINT, .flag = "--seed", .def = "1", .min = 0, .max = 4294967295.0,
	  .help = "the campaign's seed: state I is the same plan for the same seed" },
	{ .key = "points", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--points",
	  .choices = crash_points, .help = "crash points (default: all eight)" },
	{ .key = "losses", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--losses",
	  .choices = crash_losses, .help = "what a crash loses (default: all five)" },
	{ .key = "sector", .kind = DUT_P_SIZE, .flag = "--sector", .min = 512, .max = 64 * KiB,
	  .help = "atomic write unit torn writes tear at (default 512, or the identify step's)" },
	{ .key = "identify", .kind = DUT_P_STRING,
	  .help = "an identify step before this one: tear at the device's power-fail atomic unit" },
	{ .key = "duration", .kind = DUT_P_DURATION, .flag = "--duration", .def = "4s", .min = 1, .max = 600,
	  .help = "the ledger workload's length before the latest crash (whole seconds)" },
	{ .key = "clients", .kind = DUT_P_UINT, .flag = "--clients", .def = "4", .min = 1, .max = 64,
	  .help = "ledger clients" },
};

const struct dut_param_value *dut_step_param(const struct dut_step *s, const char *key)
{
	for (size_t i = 0; i < s->type->nparams; i++)
		if (strcmp(s->type->params[i].key, key) == 0)
			return &s->values[i];
	return NULL;
}

static uint64_t pu(const struct dut_step *s, const char *key)
{
	const struct dut_param_value *v = dut_step_param(s, key);

	return v && v->text ? v->u : 0;
}

static bool pset(const struct dut_step *s, const char *key)
{
	const struct dut_param_value *v = dut_step_param(s, key);

	return v && v->text;
}

static uint64_t secs(double s)
{
	return (uint64_t)(s * NS_PER_S);
}

/* ---- estimates ---- */

static uint64_t identify_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	return 2 * NS_PER_S;
}

static uint64_t count_items(const char *text, uint64_t if_null)
{
	uint64_t n = 1;

	if (!text || strcmp(text, "default") == 0)
		return if_null;
	for (const char *p = text; *p; p++)
		n += *p == ',';
	return n;
}

static uint64_t bench_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t rows = count_items(dut_step_param(s, "rows")->text, 6);

	if (pu(s, "read-only") && !pset(s, "rows"))
		rows = 3;
	return rows * (pu(s, "warmup") + pu(s, "reps") * pu(s, "time"));
}

static uint64_t probe_bytes(const struct dut_step *s, uint64_t target_bytes)
{
	if (pset(s, "span"))
		return pu(s, "span");
	if (pset(s, "size"))
		return pu(s, "size");
	return target_bytes ? target_bytes : EXP_UNKNOWN_DEVICE_BYTES;
}

static uint64_t slc_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t once = secs((double)probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return pset(s, "idle") ? 2 * once + pu(s, "idle") : once;
}

static uint64_t fill_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t levels = pu(s, "levels"), qds = pu(s, "qd");
	/* filling to the highest level writes the span at most once; the
	 * rounds are bounded by max-rounds per level and queue depth */
	uint64_t write = secs((double)probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return write + levels * qds * pu(s, "max-rounds") * pu(s, "round-time");
}

static uint64_t oltp_init_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	return pu(s, "scale") * EXP_OLTP_INIT_NS_PER_SCALE;
}

static uint64_t oltp_run_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	if (pset(s, "duration"))
		return pu(s, "duration");
	return secs((double)pu(s, "transactions") * (double)pu(s, "clients") / EXP_OLTP_ASSUMED_TPS);
}

static bool dss_has_phase(const struct dut_step *s, const char *phase)
{
	const char *t = dut_step_param(s, "phases")->text;
	size_t n = strlen(phase);

	for (const char *p = t; p && *p;) {
		const char *e = strchr(p, ',');
		const char *end = e ? e : p + strlen(p);

		while (*p == ' ')
			p++;
		while (end > p && end[-1] == ' ')
			end--;
		if ((size_t)(end - p) == 3 && memcmp(p, "all", 3) == 0)
			return true;
		if ((size_t)(end - p) == n && memcmp(p, phase, n) == 0)
			return true;
		p = e ? e + 1 : end;
	}
	return false;
}

static uint64_t dss_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	static const char *const phases[] = { "load", "keys", "analyze", "queries", "rf" };
	double sf = dut_step_param(s, "scale")->d, total = 0;

	for (size_t i = 0; i < 5; i++) {
		double t;

		if (!dss_has_phase(s, phases[i]))
			continue;
		t = dss_s_fixed[i] + dss_s_per_sf[i] * sf;
		if (i == 3) {
			t *= (double)pu(s, "reps");
			if (pset(s, "timeout") && t > 22.0 * (double)pu(s, "reps") * pu(s, "timeout") / NS_PER_S)
				t = 22.0 * (double)pu(s, "reps") * pu(s, "timeout") / NS_PER_S;
		}
		total += t < 2 ? 2 : t;
	}
	return secs(total);
}

static uint64_t restore_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	bool self = strcmp(dut_step_param(s, "dump")->text, "self") == 0;
	/* the file's size is known only at run time: a 1 GiB database is assumed */
	double bytes = self ? (double)db_bytes : GiB;

	return secs((self ? 1.5 : 1.0) * bytes / EXP_RESTORE_BPS) + 2 * NS_PER_S;
}

/* A crash state (docs/crash.md): copy, two starts, the workload, checks; the
 * template once.  Measured 3 to 12 s per state beside the workload on 2 cores. */
#define EXP_CRASH_STATE_NS (10 * NS_PER_S)
#define EXP_CRASH_TEMPLATE_NS (40 * NS_PER_S)

static uint64_t crash_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t states = pu(s, "states") + 2 * pu(s, "controls");

	return EXP_CRASH_TEMPLATE_NS + states * (EXP_CRASH_STATE_NS + pu(s, "duration"));
}

/* ---- space ---- */

static uint64_t no_space(const struct dut_step *s, uint64_t db_bytes)
{
	return 0;
}

static uint64_t probe_space(const struct dut_step *s, uint64_t db_bytes)
{
	return s->raw ? 0 : pu(s, "size");
}

static uint64_t oltp_init_space(const struct dut_step *s, uint64_t db_bytes)
{
	uint64_t ff = pset(s, "fillfactor") ? pu(s, "fillfactor") : 100;

	return pu(s, "scale") * (DUT_PGBENCH_TABLE_BYTES_PER_SCALE * 100 / ff + DUT_PGBENCH_INDEX_BYTES_PER_SCALE);
}

static uint64_t dss_space(const struct dut_step *s, uint64_t db_bytes)
{
	if (!dss_has_phase(s, "load"))
		return 0;
	return (uint64_t)ceil(dut_step_param(s, "scale")->d * (double)DUT_DSS_BYTES_PER_SF);
}

static uint64_t restore_space(const struct dut_step *s, uint64_t db_bytes)
{
	/* the restored copy, plus the dump file when we make it */
	if (strcmp(dut_step_param(s, "dump")->text, "self") == 0)
		return db_bytes + db_bytes / EXP_DUMP_FRACTION;
	return 1ull << 30;
}

/* The template cluster (scale 1, ~70 MiB), one state's copy, a damaged state's logs. */
static uint64_t crash_space(const struct dut_step *s, uint64_t db_bytes)
{
	return 3 * DUT_PG_CLUSTER_BYTES + 2 * (DUT_PGBENCH_TABLE_BYTES_PER_SCALE + DUT_PGBENCH_INDEX_BYTES_PER_SCALE);
}

/* ---- checks ---- */

static int oltp_run_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *d = dut_step_param(s, "duration"), *t = dut_step_param(s, "transactions");
	const struct dut_param_value *th = dut_step_param(s, "threads"), *cl = dut_step_param(s, "clients");

	if (d->set == t->set) {
		snprintf(msg, len, "expected exactly one of duration or transactions, found %s",
			 d->set ? "both" : "neither");
		*ret_line = d->set ? t->line : s->line;
		return -EINVAL;
	}
	if (d->set && d->u % NS_PER_S) {
		snprintf(msg, len, "duration: expected whole seconds, found \"%s\"", d->text);
		*ret_line = d->line;
		return -EINVAL;
	}
	if (th->u > cl->u) {
		snprintf(msg, len, "threads: expected at most clients (%llu), found %llu",
			 (unsigned long long)cl->u, (unsigned long long)th->u);
		*ret_line = th->set ? th->line : cl->line;
		return -EINVAL;
	}
	return 0;
}

static int restore_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *f = dut_step_param(s, "format"), *j = dut_step_param(s, "jobs");

	if (strcmp(f->text, "plain") == 0 && j->u > 1) {
		snprintf(msg, len, "jobs: a plain dump restores with psql, one job; expected jobs = 1 "
			 "or format = custom/directory, found jobs = %llu", (unsigned long long)j->u);
		*ret_line = j->line;
		return -EINVAL;
	}
	return 0;
}

static int crash_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *d = dut_step_param(s, "duration");
	const struct dut_param_value *st = dut_step_param(s, "states"), *c = dut_step_param(s, "controls");

	if (s->raw) {
		snprintf(msg, len, "raw: a crash campaign needs a filesystem on its target for its clusters; "
			 "expected raw = no");
		*ret_line = s->line;
		return -EINVAL;
	}
	if (d->u % NS_PER_S) {
		snprintf(msg, len, "duration: expected whole seconds, found \"%s\"", d->text);
		*ret_line = d->line;
		return -EINVAL;
	}
	if (st->u == 0 && c->u == 0) {
		snprintf(msg, len, "expected at least one state: states and controls are both 0");
		*ret_line = st->set ? st->line : c->set ? c->line : s->line;
		return -EINVAL;
	}
	return 0;
}

#define PARAMS(a) .params = a, .nparams = sizeof(a) / sizeof(a[0])

static const struct dut_step_type step_identify = {
	.name = "identify", .tool = "dutprobe", .command = "identify", .probe = true,
	.summary = "what the device is (model, firmware, interface, behind which bridge)",
	.params = NULL, .nparams = 0,
	.estimate_ns = identify_estimate, .space_bytes = no_space,
};
static const struct dut_step_type step_bench = {
	.name = "bench", .tool = "dutprobe", .command = "bench", .probe = true, PARAMS(bench_params),
	.summary = "sequential and random read/write rows (CrystalDiskMark-like)",
	.estimate_ns = bench_estimate, .space_bytes = probe_space,
};
static const struct dut_step_type step_slc = {
	.name = "slc", .tool = "dutprobe", .command = "slc", .probe = true, PARAMS(slc_params),
	.summary = "write until the write cache is exhausted: the knee",
	.estimate_ns = slc_estimate, .space_bytes = probe_space,
};
static const struct dut_step_type step_fill = {
	.name = "fill", .tool = "dutprobe", .command = "fill", .probe = true, PARAMS(fill_params),
	.summary = "random-write IOPS at steady state, per fill level",
	.estimate_ns = fill_estimate, .space_bytes = probe_space,
};
static const struct dut_step_type step_oltp_init = {
	.name = "oltp-init", .tool = "pgload", .command = "init", PARAMS(oltp_init_params),
	.summary = "load the pgbench tables",
	.estimate_ns = oltp_init_estimate, .space_bytes = oltp_init_space,
};
static const struct dut_step_type step_oltp_run = {
	.name = "oltp-run", .tool = "pgload", .command = "run", PARAMS(oltp_run_params),
	.summary = "pgbench-compatible OLTP run",
	.check = oltp_run_check, .estimate_ns = oltp_run_estimate, .space_bytes = no_space,
};
static const struct dut_step_type step_dss = {
	.name = "dss", .tool = "pgload", .command = "dss", PARAMS(dss_params_spec),
	.summary = "TPC-H-derived decision support: load, keys, analyze, queries",
	.estimate_ns = dss_estimate, .space_bytes = dss_space,
};
static const struct dut_step_type step_restore = {
	.name = "restore", .tool = "pg_restore", .command = NULL, PARAMS(restore_params),
	.summary = "time the restore of a dump into a new database",
	.check = restore_check, .estimate_ns = restore_estimate, .space_bytes = restore_space,
};

static const struct dut_step_type step_crash = {
	.name = "crash", .tool = "dutlab", .command = "crash", .probe = true, PARAMS(crash_params),
	.summary = "crash-consistency campaign: PostgreSQL crashed on dutfs, recovered and checked",
	.check = crash_check, .estimate_ns = crash_estimate, .space_bytes = crash_space,
};

const struct dut_step_type *const dut_step_types[] = {
	&step_identify, &step_bench, &step_slc, &step_fill,
	&step_oltp_init, &step_oltp_run, &step_dss, &step_restore, &step_crash, NULL,
};
const size_t dut_step_ntypes = 9;

const struct dut_step_type *dut_step_type_find(const char *name)
{
	for (size_t i = 0; i < dut_step_ntypes; i++)
		if (strcmp(dut_step_types[i]->name, name) == 0)
			return dut_step_types[i];
	return NULL;
}
