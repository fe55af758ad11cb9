/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The crash plan builder (tools/crash/crash_plan.c): reproducible states, valid dutfs rules. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuse/shape/rules.h"
#include "tests/cu_main.h"
#include "tools/crash/crash_plan.h"
#include "tools/crash/crash_result.h"

static bool same_state(const struct crash_state *a, const struct crash_state *b)
{
	return a->index == b->index && a->seed == b->seed && a->control == b->control && a->point == b->point &&
	       a->loss == b->loss && a->nth == b->nth && a->at_ms == b->at_ms &&
	       a->checkpoint_at_ms == b->checkpoint_at_ms && a->eio_nth == b->eio_nth &&
	       a->lose_pct == b->lose_pct && a->sector == b->sector && a->grain == b->grain;
}

static void test_same_seed_same_plan(void)
{
	struct crash_campaign c;

	crash_campaign_defaults(&c);
	c.seed = 12345;
	for (unsigned i = 0; i < crash_campaign_total(&c); i++) {
		struct crash_state a, b;
		char ra[4096], rb[4096];

		crash_plan_state(&c, i, &a);
		crash_plan_state(&c, i, &b);
		CU_CHECK(same_state(&a, &b), "state %u differs between two builds", i);
		CU_CHECK(crash_state_rules(&a, ra, sizeof(ra)) == 0 && crash_state_rules(&b, rb, sizeof(rb)) == 0 &&
			 strcmp(ra, rb) == 0, "state %u: rules differ", i);
	}
}

/* A state depends on (seed, index) only: not on the number of states asked for. */
static void test_state_independent_of_campaign_size(void)
{
	struct crash_campaign small, big;
	struct crash_state a, b;

	crash_campaign_defaults(&small);
	crash_campaign_defaults(&big);
	small.states = 5;
	big.states = 500;
	for (unsigned i = 0; i < 5; i++) {
		crash_plan_state(&small, i, &a);
		crash_plan_state(&big, i, &b);
		CU_CHECK(same_state(&a, &b), "state %u changed with the campaign size", i);
	}
}

static void test_seeds_differ_and_cover_every_kind(void)
{
	struct crash_campaign c;
	unsigned points[CRASH_POINTS] = { 0 }, losses[CRASH_LOSSES] = { 0 }, same = 0;

	crash_campaign_defaults(&c);
	c.states = 300;
	c.control_states = 0;
	for (unsigned i = 0; i < c.states; i++) {
		struct crash_state a, b;
		struct crash_campaign c2 = c;

		c2.seed = 2;
		crash_plan_state(&c, i, &a);
		crash_plan_state(&c2, i, &b);
		same += a.point == b.point && a.loss == b.loss && a.nth == b.nth && a.at_ms == b.at_ms;
		points[a.point]++;
		losses[a.loss]++;
		CU_CHECK(a.control == CRASH_CONTROL_NONE, "state %u is a control", i);
		CU_CHECK(a.point == CRASH_AT_TIME || a.point == CRASH_AT_CHECKPOINT ? a.nth == 0 : a.nth >= 1,
			 "state %u: nth %llu", i,
			 (unsigned long long)a.nth);
		CU_CHECK(a.at_ms <= 4000 && a.checkpoint_at_ms >= 800 && a.checkpoint_at_ms <= 2000,
			 "state %u: at %llu ms, checkpoint at %llu ms", i, (unsigned long long)a.at_ms,
			 (unsigned long long)a.checkpoint_at_ms);
	}
	CU_CHECK(same < 30, "seeds 1 and 2 agree on %u of 300 states", same);
	/* init (the load's crash points) only when named: it needs a second template */
	for (unsigned p = 0; p < CRASH_POINTS; p++)
		CU_CHECK(CRASH_POINTS_DEFAULT & (1u << p) ? points[p] > 20 : points[p] == 0,
			 "point %s drawn %u times in 300", crash_point_name(p), points[p]);
	for (unsigned l = 0; l < CRASH_LOSSES; l++)
		CU_CHECK(losses[l] > 20, "loss %s drawn %u times in 300", crash_loss_name(l), losses[l]);
}

/*
 * Any P x L consecutive states cover every (point, loss) pair once, P points
 * and L losses, whatever the masks: coprime (the default 9 x 5), or not (10
 * points with init x 5 losses, 4 x 2, 6 x 3), from any start.
 */
static void test_consecutive_states_cover_every_pair(void)
{
	static const struct { const char *points, *losses; } rows[] = {
		{ NULL, NULL },
		{ "wal-write,wal-fsync,heap-write,index-write,data-fsync,pg_control,slru-write,checkpoint,time,init", NULL },
		{ "wal-write,heap-write,data-fsync,time", "torn,subset" },
		{ "wal-fsync,data-fsync,pg_control,slru-write,checkpoint,time", "lose-all,lose-none,fsync-eio" },
		{ "time", NULL },
		{ NULL, "torn" },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (uint64_t seed = 1; seed < 6; seed++) {
			struct crash_campaign c;
			unsigned np, nl, first_point_run[CRASH_POINTS] = { 0 };
			char bad[32];

			crash_campaign_defaults(&c);
			c.seed = seed;
			c.states = 400;
			if (rows[r].points)
				CU_ASSERT_FATAL(crash_points_parse_list(rows[r].points, &c.points_mask, bad, sizeof(bad)) == 0);
			if (rows[r].losses)
				CU_ASSERT_FATAL(crash_losses_parse_list(rows[r].losses, &c.losses_mask, bad, sizeof(bad)) == 0);
			np = (unsigned)__builtin_popcount(c.points_mask ? c.points_mask : CRASH_POINTS_DEFAULT);
			nl = (unsigned)__builtin_popcount(c.losses_mask ? c.losses_mask : (1u << CRASH_LOSSES) - 1);
			for (unsigned start = 0; start < 3 * np * nl && start + np * nl <= c.states; start += 7) {
				unsigned seen[CRASH_POINTS][CRASH_LOSSES] = { { 0 } }, pairs = 0;

				for (unsigned i = start; i < start + np * nl; i++) {
					struct crash_state s;

					crash_plan_state(&c, i, &s);
					pairs += seen[s.point][s.loss]++ == 0;
				}
				CU_CHECK(pairs == np * nl, "row %zu seed %llu: states %u.. cover %u of the %u pairs", r,
					 (unsigned long long)seed, start, pairs, np * nl);
			}
			/* any P consecutive states: every point */
			for (unsigned i = 5; i < 5 + np; i++) {
				struct crash_state s;

				crash_plan_state(&c, i, &s);
				first_point_run[s.point]++;
			}
			for (unsigned p = 0; p < CRASH_POINTS; p++)
				CU_CHECK(first_point_run[p] <= 1, "row %zu seed %llu: point %s twice in %u states", r,
					 (unsigned long long)seed, crash_point_name(p), np);
		}
	}
	{
		struct crash_campaign c;

		crash_campaign_defaults(&c);
		CU_CHECK(c.states == 45, "the default campaign (%u states) covers the 9 x 5 default pairs once", c.states);
	}
}

/* data-fsync: the Nth fsync of a data or SLRU file (the CHECKPOINT's), N within the 15 it always makes. */
static void test_data_fsync_point(void)
{
	struct crash_campaign c;
	char rules[8192], bad[32];
	uint64_t lo = UINT64_MAX, hi = 0;

	crash_campaign_defaults(&c);
	c.states = 100;
	CU_ASSERT_FATAL(crash_points_parse_list("data-fsync", &c.points_mask, bad, sizeof(bad)) == 0);
	for (unsigned i = 0; i < c.states; i++) {
		struct crash_state s;

		crash_plan_state(&c, i, &s);
		lo = s.nth < lo ? s.nth : lo;
		hi = s.nth > hi ? s.nth : hi;
		CU_CHECK(s.point == CRASH_AT_DATA_FSYNC && s.nth >= 1 && s.nth <= 15, "state %u: %s nth %llu", i,
			 crash_point_name(s.point), (unsigned long long)s.nth);
		CU_CHECK(crash_state_rules(&s, rules, sizeof(rules)) == 0 &&
			 strstr(rules, "class = heap, index, toast, fsm, vm, slru\nop = sync\nfault = "),
			 "state %u: the point rule counts the data files' fsyncs:\n%s", i, rules);
	}
	CU_CHECK(lo == 1 && hi == 15, "N from %llu to %llu", (unsigned long long)lo, (unsigned long long)hi);
}

/* --points init: a crash after the Nth write of any file, N over the whole load and its CHECKPOINT. */
static void test_init_point(void)
{
	struct crash_campaign c;
	char rules[8192], bad[32];
	uint64_t lo = UINT64_MAX, hi = 0;

	crash_campaign_defaults(&c);
	c.states = 200;
	c.control_states = 1;
	CU_ASSERT_FATAL(crash_points_parse_list("init", &c.points_mask, bad, sizeof(bad)) == 0);
	for (unsigned i = 0; i < c.states; i++) {
		struct crash_state s;

		crash_plan_state(&c, i, &s);
		CU_CHECK(s.point == CRASH_AT_INIT && s.nth >= 1 && s.nth <= 4800, "state %u: %s nth %llu", i,
			 crash_point_name(s.point), (unsigned long long)s.nth);
		lo = s.nth < lo ? s.nth : lo;
		hi = s.nth > hi ? s.nth : hi;
		CU_CHECK(crash_state_rules(&s, rules, sizeof(rules)) == 0 &&
			 strstr(rules, "[rule point]\nop = write\nfault = ") &&
			 strstr(rules, "[rule harness]") < strstr(rules, "[rule point]"),
			 "state %u: the point rule counts every write but the harness's:\n%s", i, rules);
	}
	CU_CHECK(lo < 500 && hi > 4300, "N from %llu to %llu: the COPY and the CHECKPOINT both reached",
		 (unsigned long long)lo, (unsigned long long)hi);
	{
		struct crash_state s;

		/* the negative controls keep their own points */
		crash_plan_state(&c, c.states, &s);
		CU_CHECK(s.control == CRASH_CONTROL_FPW_OFF && s.point == CRASH_AT_CHECKPOINT, "control: %s",
			 crash_point_name(s.point));
	}
}

static void test_masks_restrict_the_draws(void)
{
	struct crash_campaign c;
	char bad[32];

	crash_campaign_defaults(&c);
	CU_CHECK(crash_points_parse_list("wal-write, time", &c.points_mask, bad, sizeof(bad)) == 0, "points");
	CU_CHECK(crash_losses_parse_list("torn", &c.losses_mask, bad, sizeof(bad)) == 0, "losses");
	CU_CHECK(crash_points_parse_list("wal-write,disk", &c.points_mask, bad, sizeof(bad)) == -EINVAL &&
		 strcmp(bad, "disk") == 0, "unknown point named: %s", bad);
	CU_CHECK(crash_losses_parse_list("", &c.losses_mask, bad, sizeof(bad)) == -EINVAL, "empty list");
	for (unsigned i = 0; i < c.states; i++) {
		struct crash_state s;

		crash_plan_state(&c, i, &s);
		CU_CHECK((s.point == CRASH_AT_WAL_WRITE || s.point == CRASH_AT_TIME) && s.loss == CRASH_LOSS_TORN &&
			 s.grain == 512, "state %u: %s/%s grain %llu", i, crash_point_name(s.point),
			 crash_loss_name(s.loss), (unsigned long long)s.grain);
	}
}

static void test_controls_come_last(void)
{
	struct crash_campaign c;
	struct crash_state s;

	crash_campaign_defaults(&c);
	c.states = 3;
	c.control_states = 2;
	CU_CHECK(crash_campaign_total(&c) == 7, "total %u", crash_campaign_total(&c));
	crash_plan_state(&c, 2, &s);
	CU_CHECK(s.control == CRASH_CONTROL_NONE, "state 2");
	for (unsigned i = 3; i < 5; i++) {
		crash_plan_state(&c, i, &s);
		CU_CHECK(s.control == CRASH_CONTROL_FPW_OFF && s.loss == CRASH_LOSS_TORN && s.grain == 4096 &&
			 s.point == CRASH_AT_CHECKPOINT && s.ckpt_delay_ms >= 150 && s.ckpt_delay_ms <= 500,
			 "state %u: a full_page_writes=off control torn at 4k, crashed inside its checkpoint", i);
	}
	for (unsigned i = 5; i < 7; i++) {
		crash_plan_state(&c, i, &s);
		CU_CHECK(s.control == CRASH_CONTROL_FSYNC_OFF && s.lose_pct == 100, "state %u: fsync=off", i);
	}
	CU_CHECK(strstr(crash_control_settings(CRASH_CONTROL_FPW_OFF), "full_page_writes = off") != NULL, "fpw");
	CU_CHECK(strstr(crash_control_settings(CRASH_CONTROL_FSYNC_OFF), "fsync = off") != NULL, "fsync");
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Every rules file the plan writes is one dutfs accepts, with the faults the state needs. */
static void test_rules_parse_in_dutfs(void)
{
	struct crash_campaign c;

	crash_campaign_defaults(&c);
	c.states = 200;
	for (unsigned i = 0; i < crash_campaign_total(&c); i++) {
		struct crash_state s;
		struct shape_rules *rs = NULL;
		struct dut_error err = { "" };
		char text[4096];
		unsigned want_faults;

		crash_plan_state(&c, i, &s);
		CU_CHECK(crash_state_rules(&s, text, sizeof(text)) == 0, "state %u: rules too long", i);
		CU_CHECK(shape_rules_parse(text, strlen(text), "state.ini", &rs, &err) == 0,
			 "state %u: dutfs refuses its rules: %s\n%s", i, err.msg, text);
		want_faults = 1 + (s.point != CRASH_AT_TIME && s.point != CRASH_AT_CHECKPOINT) +
			      (s.loss == CRASH_LOSS_FSYNC_EIO);
		CU_CHECK(rs && rs->nfaults == want_faults, "state %u: %u faults, want %u", i, rs ? rs->nfaults : 0,
			 want_faults);
		CU_CHECK(count(text, "[rule harness]") == 1 && strstr(text, "[rule all]\nfault = loss\n"),
			 "state %u: harness and catch-all rules", i);
		if (s.loss == CRASH_LOSS_TORN)
			CU_CHECK(strstr(text, "grain = ") != NULL, "state %u: torn without grain", i);
		shape_rules_free(rs);
	}
	{
		struct crash_state s;
		char small[64];

		crash_plan_state(&c, 0, &s);
		CU_CHECK(crash_state_rules(&s, small, sizeof(small)) == -ENOSPC, "short buffer");
	}
}

/* --class-loss: CLASS=MODE items, data for the five data-file classes, one canonical form. */
static void test_class_loss_parse(void)
{
	static const struct { const char *in; int ret; const char *canon; uint32_t fixed; } rows[] = {
		{ "wal=lose-none,data=torn", 0, "data=torn,wal=lose-none", CRASH_CLASSES_DATA | 1u << DUT_IO_WAL },
		{ " wal = torn , slru=subset ", 0, "wal=torn,slru=subset", 1u << DUT_IO_WAL | 1u << DUT_IO_SLRU },
		{ "heap=torn,index=torn,toast=torn,fsm=torn,vm=torn", 0, "data=torn", CRASH_CLASSES_DATA },
		{ "heap=torn,index=subset", 0, "heap=torn,index=subset", 1u << DUT_IO_HEAP | 1u << DUT_IO_INDEX },
		{ "data=fsync-eio,other=lose-all", 0, "data=fsync-eio,other=lose-all",
		  CRASH_CLASSES_DATA | 1u << DUT_IO_OTHER },
		{ "wal", -EINVAL, NULL, 0 },
		{ "disk=torn", -EINVAL, NULL, 0 },
		{ "wal=fast", -EINVAL, NULL, 0 },
		{ "wal=torn,wal=subset", -EINVAL, NULL, 0 },
		{ "heap=torn,data=subset", -EINVAL, NULL, 0 },
		{ "other=fsync-eio", -EINVAL, NULL, 0 },
		{ "", -EINVAL, NULL, 0 },
		{ ",", -EINVAL, NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crash_class_loss cl = { 0 };
		char why[300] = "", canon[160] = "";
		int r = crash_class_loss_parse(rows[i].in, &cl, why, sizeof(why));

		CU_CHECK(r == rows[i].ret, "\"%s\": %d, want %d (%s)", rows[i].in, r, rows[i].ret, why);
		if (r < 0) {
			CU_CHECK(why[0] != 0, "\"%s\": refused without a reason", rows[i].in);
			continue;
		}
		crash_class_loss_format(&cl, canon, sizeof(canon));
		CU_CHECK(cl.fixed == rows[i].fixed && strcmp(canon, rows[i].canon) == 0, "\"%s\": mask %#x, \"%s\"",
			 rows[i].in, cl.fixed, canon);
		/* the canonical form reads back as the same */
		{
			struct crash_class_loss again = { 0 };

			CU_CHECK(crash_class_loss_parse(canon, &again, why, sizeof(why)) == 0 &&
				 memcmp(&again, &cl, sizeof(cl)) == 0, "\"%s\" does not read back", canon);
		}
	}
}

/* The unsynced fault and whether the point/eio faults are on the rule dutfs picks for a request. */
static const struct shape_rule *picked(struct shape_rules *rs, enum dut_io_class c, const char *path,
				       enum shape_op op)
{
	return shape_rules_match(rs, (enum shape_class)c, path, op);
}

static const struct shape_fault *rule_fault(const struct shape_rule *r, const char *name_prefix,
					    enum shape_fault_type type)
{
	for (unsigned i = 0; r && i < r->nfaults; i++)
		if (r->faults[i]->p.type == type && !strncmp(r->faults[i]->name, name_prefix, strlen(name_prefix)))
			return r->faults[i];
	return NULL;
}

/*
 * Losses composed per class: for every state of campaigns with and without
 * --class-loss, the rules parse in dutfs and dutfs's own matcher gives each
 * class's writes the unsynced fault of that class's mode (lose, torn, grain
 * as the mode says), every sync of a class in fsync-eio the EIO (and no
 * other's), and the crash point's requests the crash fault, whatever their
 * class's mode.  The draws do not depend on --class-loss; the controls
 * ignore it.
 */
static void test_class_loss_rules(void)
{
	static const char *const specs[] = {
		NULL, "wal=lose-none,data=torn", "data=fsync-eio", "wal=fsync-eio,slru=subset,other=lose-none",
		"heap=subset,index=lose-all,wal=torn,slru=lose-none,fsm=fsync-eio",
	};

	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct crash_campaign c, plain;
		char why[300];

		crash_campaign_defaults(&c);
		c.seed = 7 + k;
		c.states = 90;
		c.control_states = 1;
		c.sector = 4096;
		c.page_bytes = k % 2 ? 16384 : 0;   /* subset loses pages of the server's block size */
		if (specs[k])
			CU_ASSERT_FATAL(crash_class_loss_parse(specs[k], &c.class_loss, why, sizeof(why)) == 0);
		plain = c;
		memset(&plain.class_loss, 0, sizeof(plain.class_loss));
		for (unsigned i = 0; i < crash_campaign_total(&c); i++) {
			struct crash_state s, p;
			struct shape_rules *rs = NULL;
			struct dut_error err = { "" };
			char text[8192];

			crash_plan_state(&c, i, &s);
			crash_plan_state(&plain, i, &p);
			CU_CHECK(s.point == p.point && s.loss == p.loss && s.nth == p.nth && s.at_ms == p.at_ms &&
				 s.checkpoint_at_ms == p.checkpoint_at_ms && s.lose_pct == p.lose_pct &&
				 s.ckpt_delay_ms == p.ckpt_delay_ms, "%s state %u: the draws moved", specs[k], i);
			if (s.control)
				CU_CHECK(!s.class_loss.fixed && crash_state_loss_classes(&s, s.loss) == CRASH_CLASSES_ALL,
					 "%s state %u: a control took --class-loss", specs[k], i);
			CU_CHECK(crash_state_rules(&s, text, sizeof(text)) == 0, "state %u: rules too long", i);
			if (shape_rules_parse(text, strlen(text), "state.ini", &rs, &err) != 0) {
				CU_CHECK(false, "%s state %u: dutfs refuses its rules: %s\n%s", specs[k], i, err.msg, text);
				continue;
			}
			if (specs[k] && !s.control)
				CU_CHECK(strstr(text, "; loss by class: ") != NULL, "state %u: the rules do not say it", i);
			for (unsigned cl = 0; cl < DUT_IO_CLASS_COUNT; cl++) {
				enum crash_loss m = crash_state_class_loss(&s, cl);
				const char *path = cl == DUT_IO_OTHER ? "pgdata/global/pg_control" : "pgdata/base/5/16384";
				const struct shape_rule *w = picked(rs, cl, path, SHAPE_OP_WRITE);
				const struct shape_rule *f = picked(rs, cl, path, SHAPE_OP_FSYNC);
				const struct shape_fault *u = rule_fault(w, "loss", SHAPE_FAULT_UNSYNCED);
				double want_pct = m == CRASH_LOSS_NONE ? 0 : m == CRASH_LOSS_TORN ? 50 :
						  m == CRASH_LOSS_SUBSET ? (m == s.loss ? s.lose_pct : s.fixed_subset_pct) : 100;
				uint64_t want_grain = m == CRASH_LOSS_TORN ? s.sector : m == CRASH_LOSS_SUBSET ? s.page_bytes : 0;
				bool want_eio = m == CRASH_LOSS_FSYNC_EIO && (CRASH_CLASSES_EIO & (1u << cl));
				bool point_here;

				CU_CHECK(u && u->p.lose_pct == want_pct && u->p.grain == want_grain &&
					 (u->p.torn == SHAPE_TORN_RANDOM) == (m == CRASH_LOSS_TORN || m == CRASH_LOSS_SUBSET),
					 "%s state %u: a %s write gets %s (lose %g, grain %llu), want %s", specs[k], i,
					 dut_io_class_name(cl), u ? u->name : "no unsynced fault", u ? u->p.lose_pct : -1,
					 u ? (unsigned long long)u->p.grain : 0ull, crash_loss_name(m));
				CU_CHECK(!!rule_fault(f, "eio", SHAPE_FAULT_ERROR) == want_eio, "%s state %u: %s fsync: %s",
					 specs[k], i, dut_io_class_name(cl), want_eio ? "no EIO" : "an EIO it should not get");
				point_here = (s.point == CRASH_AT_WAL_WRITE && cl == DUT_IO_WAL) ||
					     (s.point == CRASH_AT_HEAP_WRITE && cl == DUT_IO_HEAP) ||
					     (s.point == CRASH_AT_INDEX_WRITE && cl == DUT_IO_INDEX) ||
					     (s.point == CRASH_AT_SLRU_WRITE && cl == DUT_IO_SLRU) ||
					     (s.point == CRASH_AT_PG_CONTROL && cl == DUT_IO_OTHER);
				if (point_here)
					CU_CHECK(rule_fault(w, "point", SHAPE_FAULT_CRASH) != NULL, "%s state %u: a %s write "
						 "misses the %s point", specs[k], i, dut_io_class_name(cl), crash_point_name(s.point));
				point_here = (s.point == CRASH_AT_WAL_FSYNC && cl == DUT_IO_WAL) ||
					     (s.point == CRASH_AT_DATA_FSYNC &&
					      ((CRASH_CLASSES_DATA | 1u << DUT_IO_SLRU) & (1u << cl)));
				if (point_here)
					CU_CHECK(rule_fault(f, "point", SHAPE_FAULT_CRASH) != NULL, "%s state %u: a %s fsync "
						 "misses the %s point", specs[k], i, dut_io_class_name(cl), crash_point_name(s.point));
			}
			/* the harness's files are never shaped */
			CU_CHECK(!rule_fault(picked(rs, DUT_IO_OTHER, "pgdata/pgload_state.json", SHAPE_OP_WRITE), "",
					     SHAPE_FAULT_UNSYNCED), "state %u: the harness's file is journaled", i);
			shape_rules_free(rs);
		}
	}
}

/* The fixed losses are in each state's JSON, the report and the command that re-runs a state. */
static void test_class_loss_reported(void)
{
	struct crash_outcome o[3];
	struct crash_report r = { .only_state = -1, .o = o, .n = 3 };
	json_object *j, *states, *st, *v, *cfg;
	char why[300], line[600], *buf = NULL;
	size_t len = 0;
	FILE *f;

	crash_campaign_defaults(&r.c);
	r.c.states = 1;
	r.c.control_states = 1;
	CU_ASSERT_FATAL(crash_class_loss_parse("wal=lose-none,data=torn", &r.c.class_loss, why, sizeof(why)) == 0);
	memset(o, 0, sizeof(o));
	for (unsigned k = 0; k < 3; k++) {
		crash_plan_state(&r.c, k, &o[k].st);
		o[k].started = o[k].balances_ok = true;
	}
	o[0].lost = 1;
	for (unsigned k = 0; k < 3; k++)
		crash_outcome_judge(&o[k]);
	j = crash_report_json(&r);
	CU_ASSERT_FATAL(j != NULL);
	CU_CHECK(json_object_object_get_ex(j, "config", &cfg) && json_object_object_get_ex(cfg, "class_loss", &v) &&
		 !strcmp(json_object_get_string(v), "data=torn,wal=lose-none"), "config.class_loss");
	CU_ASSERT_FATAL(json_object_object_get_ex(j, "states", &states));
	st = json_object_array_get_idx(states, 0);
	CU_CHECK(json_object_object_get_ex(st, "class_loss_fixed", &v) &&
		 !strcmp(json_object_get_string(v), "data=torn,wal=lose-none"), "state 0: class_loss_fixed");
	CU_CHECK(json_object_object_get_ex(st, "class_losses", &v) &&
		 !strcmp(json_object_get_string(json_object_object_get(v, "wal")), "lose-none") &&
		 !strcmp(json_object_get_string(json_object_object_get(v, "index")), "torn") &&
		 !strcmp(json_object_get_string(json_object_object_get(v, "slru")), crash_loss_name(o[0].st.loss)),
		 "state 0: class_losses %s", json_object_to_json_string(v));
	st = json_object_array_get_idx(states, 1);
	CU_CHECK(json_object_object_get_ex(st, "class_loss_fixed", &v) && !strcmp(json_object_get_string(v), ""),
		 "a control fixes nothing");
	json_object_put(j);
	crash_repro_command(&r, 0, line, sizeof(line));
	CU_CHECK(strstr(line, " --class-loss data=torn,wal=lose-none ") != NULL, "reproduce: %s", line);
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	crash_report_print(&r, f);
	fclose(f);
	CU_CHECK(buf && strstr(buf, "loss fixed by class in every regular state: data=torn,wal=lose-none") &&
		 strstr(buf, "data=torn,wal=lose-none   "), "report:\n%s", buf ? buf : "");
	free(buf);
}

/* A campaign passes only when no regular state is damaged and every control saw damage. */
static void test_verdict_needs_controls_to_see_damage(void)
{
	static const struct {
		const char *name;
		bool regular_damaged, fpw_damaged, fsync_damaged, harness_error;
		bool pass;
	} rows[] = {
		{ "all as expected", false, true, true, false, true },
		{ "lost commits with fsync honoured", true, true, true, false, false },
		{ "full_page_writes=off control blind", false, false, true, false, false },
		{ "fsync=off control blind", false, true, false, false, false },
		{ "a state could not run", false, true, true, true, false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct crash_outcome o[4];
		struct crash_report r = { .only_state = -1, .o = o, .n = 4 };
		struct crash_verdict v;
		char line[400];

		crash_campaign_defaults(&r.c);
		r.c.states = 2;
		r.c.control_states = 1;
		memset(o, 0, sizeof(o));
		for (unsigned k = 0; k < 4; k++) {
			crash_plan_state(&r.c, k, &o[k].st);
			o[k].started = o[k].balances_ok = true;
		}
		o[1].lost = rows[i].regular_damaged ? 3 : 0;
		o[2].started = !rows[i].fpw_damaged;
		o[3].lost = rows[i].fsync_damaged ? 10 : 0;
		if (rows[i].harness_error) {
			o[0].harness_error = true;
			snprintf(o[0].error, sizeof(o[0].error), "dutfs did not mount");
		}
		for (unsigned k = 0; k < 4; k++)
			crash_outcome_judge(&o[k]);
		crash_report_verdict(&r, &v);
		CU_CHECK(v.pass == rows[i].pass, "%s: pass %d (%s)", rows[i].name, v.pass, v.why);
		if (rows[i].regular_damaged) {
			CU_CHECK(v.first_failing == 1, "%s: first failing %ld", rows[i].name, v.first_failing);
			crash_repro_command(&r, 1, line, sizeof(line));
			CU_CHECK(strcmp(line, "dutlab crash --seed 1 --states 2 --controls 1 --state 1") == 0,
				 "%s: reproduce with \"%s\"", rows[i].name, line);
		}
		{
			struct json_object *j = crash_report_json(&r), *x, *y;

			CU_CHECK(j && json_object_object_get_ex(j, "verdict", &x) &&
				 json_object_object_get_ex(x, "pass", &y) && json_object_get_boolean(y) == rows[i].pass,
				 "%s: JSON verdict", rows[i].name);
			CU_CHECK(json_object_object_get_ex(j, "states", &x) && json_object_array_length(x) == 4,
				 "%s: JSON states", rows[i].name);
			json_object_put(j);
		}
	}
}

/* A crash during a checkpoint, from the server log up to the crash. */
static void test_log_in_checkpoint(void)
{
	static const struct { const char *log; bool in; } rows[] = {
		{ "", false },
		{ "LOG:  database system is ready to accept connections\n", false },
		{ "LOG:  checkpoint starting: immediate force wait\n", true },
		{ "LOG:  checkpoint starting: immediate force wait\n"
		  "LOG:  checkpoint complete: wrote 44 buffers (0.3%); ...\n", false },
		{ "LOG:  checkpoint starting: time\nLOG:  checkpoint complete: wrote 1 buffers\n"
		  "LOG:  checkpoint starting: immediate force wait\n", true },
		{ "LOG:  restartpoint starting: time\n", true },
		{ "LOG:  checkpoint starting: end-of-recovery immediate wait\n"
		  "LOG:  checkpoint complete: wrote 3 buffers\n", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(crash_log_in_checkpoint(rows[i].log, strlen(rows[i].log)) == rows[i].in,
			 "row %zu: in a checkpoint should be %d", i, rows[i].in);
}

static const struct cu_test tests[] = {
	{ "log_in_checkpoint", test_log_in_checkpoint },
	{ "same_seed_same_plan", test_same_seed_same_plan },
	{ "state_independent_of_campaign_size", test_state_independent_of_campaign_size },
	{ "seeds_differ_and_cover_every_kind", test_seeds_differ_and_cover_every_kind },
	{ "consecutive_states_cover_every_pair", test_consecutive_states_cover_every_pair },
	{ "data_fsync_point", test_data_fsync_point },
	{ "masks_restrict_the_draws", test_masks_restrict_the_draws },
	{ "init_point", test_init_point },
	{ "controls_come_last", test_controls_come_last },
	{ "rules_parse_in_dutfs", test_rules_parse_in_dutfs },
	{ "class_loss_parse", test_class_loss_parse },
	{ "class_loss_rules", test_class_loss_rules },
	{ "class_loss_reported", test_class_loss_reported },
	{ "verdict_needs_controls_to_see_damage", test_verdict_needs_controls_to_see_damage },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash-plan", .tests = tests };
