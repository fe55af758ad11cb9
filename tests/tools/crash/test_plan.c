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
	{ "verdict_needs_controls_to_see_damage", test_verdict_needs_controls_to_see_damage },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash-plan", .tests = tests };
