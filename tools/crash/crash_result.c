/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/crash/crash_result.h"

static const char *const phase_names[CRASH_PHASES] = {
	"copy", "mount", "start", "workload", "crash", "recovery", "ledger_check", "amcheck", "teardown",
};

const char *crash_phase_name(enum crash_phase p)
{
	return (unsigned)p < CRASH_PHASES ? phase_names[p] : "?";
}

void crash_outcome_judge(struct crash_outcome *o)
{
	o->damaged = !o->harness_error &&
		     (!o->started || o->lost || o->half || o->unexpected || !o->balances_ok || o->load_findings ||
		      o->amcheck_rc != 0 || o->amcheck_lines);
}

void crash_outcome_summary(const struct crash_outcome *o, char *buf, size_t len)
{
	if (o->harness_error) {
		snprintf(buf, len, "not run: %s", o->error);
	} else if (!o->started) {
		snprintf(buf, len, "the server did not start: %s", o->start_failure);
	} else if (o->lost || o->half || o->unexpected) {
		snprintf(buf, len, "%" PRIu64 " acknowledged commits lost, %" PRIu64 " half-present, %" PRIu64
			 " unexpected transactions", o->lost, o->half, o->unexpected);
	} else if (o->load_findings) {
		snprintf(buf, len, "load (%u findings, last acknowledged: %s): %s", o->load_findings,
			 o->load_last_ack[0] ? o->load_last_ack : "none", o->load_detail);
	} else if (!o->balances_ok) {
		snprintf(buf, len, "ledger: %s", o->ledger_detail);
	} else if (o->amcheck_rc != 0 || o->amcheck_lines) {
		snprintf(buf, len, "pg_amcheck (exit %d): %s", o->amcheck_rc, o->amcheck_first);
	} else {
		snprintf(buf, len, "clean");
	}
}

void crash_report_verdict(const struct crash_report *r, struct crash_verdict *ret)
{
	struct crash_verdict v = { .first_failing = -1 };

	for (size_t i = 0; i < r->n; i++) {
		const struct crash_outcome *o = &r->o[i];

		if (o->harness_error) {
			v.harness_errors++;
			if (v.first_failing < 0)
				v.first_failing = (long)i;
			continue;
		}
		switch (o->st.control) {
		case CRASH_CONTROL_NONE:
			v.regular++;
			if (o->damaged) {
				v.regular_damaged++;
				if (v.first_failing < 0)
					v.first_failing = (long)i;
			}
			break;
		case CRASH_CONTROL_FPW_OFF:
			v.fpw_states++;
			v.fpw_detected += o->damaged;
			break;
		case CRASH_CONTROL_FSYNC_OFF:
			v.fsync_states++;
			v.fsync_detected += o->damaged;
			break;
		}
	}
	v.pass = true;
	if (v.harness_errors) {
		v.pass = false;
		snprintf(v.why, sizeof(v.why), "%zu states could not be run", v.harness_errors);
	} else if (v.regular_damaged) {
		v.pass = false;
		snprintf(v.why, sizeof(v.why), "%zu of %zu states with fsync honoured were damaged",
			 v.regular_damaged, v.regular);
	} else if (v.fpw_states && !v.fpw_detected) {
		v.pass = false;
		snprintf(v.why, sizeof(v.why), "the full_page_writes=off control saw no damage in %zu states: "
			 "the checks could not see torn pages", v.fpw_states);
	} else if (v.fsync_states && !v.fsync_detected) {
		v.pass = false;
		snprintf(v.why, sizeof(v.why), "the fsync=off control saw no damage in %zu states: "
			 "the checks could not see lost commits", v.fsync_states);
	} else if (!v.fpw_states && !v.fsync_states && r->only_state < 0) {
		snprintf(v.why, sizeof(v.why), "no negative control was run: a clean result is not proven able to fail");
	}
	*ret = v;
}

void crash_repro_command(const struct crash_report *r, unsigned state, char *buf, size_t len)
{
	const struct crash_campaign *c = &r->c;
	struct crash_campaign d;
	size_t used;

	crash_campaign_defaults(&d);
	if (r->experiment) {
		snprintf(buf, len, "dutlab crash %s --state %u", r->experiment, state);
		return;
	}
	used = (size_t)snprintf(buf, len, "dutlab crash --seed %" PRIu64 " --states %u --controls %u", c->seed,
				c->states, c->control_states);
#define ADD(...) do { if (used < len) used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__); } while (0)
	if (c->sector != d.sector)
		ADD(" --sector %u", c->sector);
	if (c->workload_s != d.workload_s)
		ADD(" --duration %g", c->workload_s);
	if (c->clients != d.clients)
		ADD(" --clients %u", c->clients);
	if (c->points_mask) {
		ADD(" --points ");
		for (unsigned p = 0, k = 0; p < CRASH_POINTS; p++)
			if (c->points_mask & (1u << p))
				ADD("%s%s", k++ ? "," : "", crash_point_name(p));
	}
	if (c->losses_mask) {
		ADD(" --losses ");
		for (unsigned l = 0, k = 0; l < CRASH_LOSSES; l++)
			if (c->losses_mask & (1u << l))
				ADD("%s%s", k++ ? "," : "", crash_loss_name(l));
	}
	if (c->class_loss.fixed) {
		char spec[160];

		crash_class_loss_format(&c->class_loss, spec, sizeof(spec));
		ADD(" --class-loss %s", spec);
	}
	/* the same clusters and the same tearing: without them it is another state */
	for (unsigned i = 0; i < r->nsets; i++)
		ADD(" --set '%s'", r->sets[i]);
	if (r->identify)
		ADD(" --identify '%s'", r->identify);
	if (r->bindir)
		ADD(" --bindir '%s'", r->bindir);
	ADD(" --state %u", state);
#undef ADD
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool crash_log_in_checkpoint(const char *text, size_t len)
{
	static const char *const starts[] = { "checkpoint starting:", "restartpoint starting:" };
	static const char *const ends[] = { "checkpoint complete:", "restartpoint complete:" };
	const char *last = NULL;

	for (size_t k = 0; k < 2; k++) {
		const char *p = text, *hit;

		while ((hit = memmem(p, len - (size_t)(p - text), starts[k], strlen(starts[k])))) {
			if (!last || hit > last)
				last = hit;
			p = hit + 1;
		}
	}
	if (!last)
		return false;
	for (size_t k = 0; k < 2; k++)
		if (memmem(last, len - (size_t)(last - text), ends[k], strlen(ends[k])))
			return false;
	return true;
}

struct group {
	size_t states, started, damaged, in_ckpt;
	uint64_t lost, half, amcheck;
	uint64_t rec[4096];
	size_t nrec;
};

static void group_add(struct group *g, const struct crash_outcome *o)
{
	if (o->harness_error)
		return;
	g->states++;
	g->started += o->started;
	g->in_ckpt += o->in_checkpoint;
	g->damaged += o->damaged;
	g->lost += o->lost;
	g->half += o->half;
	g->amcheck += o->amcheck_lines + (o->amcheck_rc > 0 && !o->amcheck_lines);
	if (o->started && g->nrec < sizeof(g->rec) / sizeof(g->rec[0]))
		g->rec[g->nrec++] = o->phase_ms[CRASH_PH_RECOVERY];
}

static void group_row(FILE *out, const char *name, struct group *g)
{
	uint64_t p50 = 0, max = 0;

	if (!g->states)
		return;
	if (g->nrec) {
		qsort(g->rec, g->nrec, sizeof(g->rec[0]), cmp_u64);
		p50 = g->rec[(g->nrec - 1) / 2];
		max = g->rec[g->nrec - 1];
	}
	fprintf(out, "  %-30s %6zu %7zu %8zu %8" PRIu64 " %6" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7zu\n",
		name, g->states, g->in_ckpt, g->started, g->lost, g->half, g->amcheck, p50, max, g->damaged);
}

static void table_head(FILE *out, const char *by)
{
	fprintf(out, "\n  %-30s %6s %7s %8s %8s %6s %8s %8s %8s %7s\n", by, "states", "in_ckpt", "started", "lost",
		"half", "amcheck", "rec_p50", "rec_max", "damaged");
}

void crash_report_print(const struct crash_report *r, FILE *out)
{
	static struct group g[(int)CRASH_POINTS > (int)CRASH_LOSSES ? (int)CRASH_POINTS : (int)CRASH_LOSSES];
	struct crash_verdict v;
	uint64_t ph[CRASH_PHASES] = { 0 };
	uint32_t page = r->c.page_bytes ? r->c.page_bytes : CRASH_PG_DEFAULT_PAGE_BYTES;
	size_t run = 0;
	char line[400], fixed[160];

	crash_report_verdict(r, &v);
	fprintf(out, "dutlab crash: %zu states (seed %" PRIu64 "), %.1f s", r->n, r->c.seed, (double)r->elapsed_ms / 1e3);
	for (size_t i = 0; i < r->n; i++)
		run += !r->o[i].harness_error;
	if (r->elapsed_ms > r->template_ms && run)
		fprintf(out, ", %.1f states per minute (template %.1f s not counted)",
			(double)run * 60000.0 / (double)(r->elapsed_ms - r->template_ms), (double)r->template_ms / 1e3);
	fputc('\n', out);
	crash_atomic_sentence(&r->atomic, r->c.sector ? r->c.sector : 512, page, line, sizeof(line));
	fprintf(out, "%s\n", line);
	crash_class_loss_format(&r->c.class_loss, fixed, sizeof(fixed));
	if (fixed[0])
		fprintf(out, "loss fixed by class in every regular state: %s (--class-loss); the loss column is the "
			"mode drawn for the other classes\n", fixed);
	for (size_t i = 0; i < r->n; i++) {
		const struct crash_outcome *o = &r->o[i];

		crash_outcome_summary(o, line, sizeof(line));
		/* the loss column is the drawn mode; the classes --class-loss fixed follow it */
		crash_class_loss_format(&o->st.class_loss, fixed, sizeof(fixed));
		fprintf(out, "  state %3u  %-11s %-9s %-28s %s%s", o->st.index, crash_point_name(o->st.point),
			crash_loss_name(o->st.loss), o->st.control ? crash_control_name(o->st.control) : fixed,
			line, o->st.control && o->damaged ? " (expected)" : "");
		/* where in the load the crash came: after its last acknowledged statement */
		if (o->load && !o->load_findings)
			fprintf(out, " (crashed after: %s)", o->load_last_ack[0] ? o->load_last_ack : "nothing acknowledged");
		fputc('\n', out);
		for (unsigned p = 0; p < CRASH_PHASES; p++)
			ph[p] += o->phase_ms[p];
	}
	memset(g, 0, sizeof(g));
	table_head(out, "fsync honoured, by crash point");
	for (size_t i = 0; i < r->n; i++)
		if (!r->o[i].st.control)
			group_add(&g[r->o[i].st.point], &r->o[i]);
	for (unsigned p = 0; p < CRASH_POINTS; p++)
		group_row(out, crash_point_name(p), &g[p]);
	memset(g, 0, sizeof(g));
	table_head(out, "fsync honoured, by loss mode");
	for (size_t i = 0; i < r->n; i++)
		if (!r->o[i].st.control)
			group_add(&g[r->o[i].st.loss], &r->o[i]);
	for (unsigned l = 0; l < CRASH_LOSSES; l++)
		group_row(out, crash_loss_name(l), &g[l]);
	memset(g, 0, sizeof(g));
	table_head(out, "negative controls (damage expected)");
	for (size_t i = 0; i < r->n; i++)
		if (r->o[i].st.control)
			group_add(&g[r->o[i].st.control], &r->o[i]);
	group_row(out, crash_control_name(CRASH_CONTROL_FPW_OFF), &g[CRASH_CONTROL_FPW_OFF]);
	group_row(out, crash_control_name(CRASH_CONTROL_FSYNC_OFF), &g[CRASH_CONTROL_FSYNC_OFF]);
	fprintf(out, "\n  (in_ckpt: the crash came during a checkpoint, between its start and its end in the server log;\n"
		     "   lost: acknowledged commits missing; half: transactions in one ledger table only;\n"
		     "   amcheck: lines of pg_amcheck complaints; rec_*: restart with crash recovery, ms)\n");
	fprintf(out, "time per state (mean, ms):");
	for (unsigned p = 0; p < CRASH_PHASES && r->n; p++)
		fprintf(out, " %s %" PRIu64, crash_phase_name(p), ph[p] / r->n);
	fputc('\n', out);
	if (v.first_failing >= 0) {
		const struct crash_outcome *o = &r->o[v.first_failing];

		crash_outcome_summary(o, line, sizeof(line));
		fprintf(out, "first failing state: %u (%s, %s): %s\n", o->st.index, crash_point_name(o->st.point),
			crash_loss_name(o->st.loss), line);
		crash_repro_command(r, o->st.index, line, sizeof(line));
		fprintf(out, "  reproduce: %s\n", line);
	}
	fprintf(out, "verdict: %s%s%s\n", v.pass ? "PASS" : "FAIL", v.why[0] ? ": " : "", v.why);
}

static struct json_object *outcome_json(const struct crash_outcome *o)
{
	struct json_object *j = json_object_new_object(), *ph = json_object_new_object(),
			   *losses = json_object_new_object();
	char line[400], fixed[160];

	json_object_object_add(j, "index", json_object_new_int((int)o->st.index));
	json_object_object_add(j, "seed", json_object_new_int64((int64_t)(o->st.seed & INT64_MAX)));
	json_object_object_add(j, "control", json_object_new_string(crash_control_name(o->st.control)));
	json_object_object_add(j, "point", json_object_new_string(crash_point_name(o->st.point)));
	json_object_object_add(j, "loss", json_object_new_string(crash_loss_name(o->st.loss)));
	/* every class's mode: the drawn one, or the one --class-loss fixed */
	for (unsigned c = 0; c < DUT_IO_CLASS_COUNT; c++)
		json_object_object_add(losses, dut_io_class_name(c),
				       json_object_new_string(crash_loss_name(crash_state_class_loss(&o->st, c))));
	json_object_object_add(j, "class_losses", losses);
	crash_class_loss_format(&o->st.class_loss, fixed, sizeof(fixed));
	json_object_object_add(j, "class_loss_fixed", json_object_new_string(fixed));
	json_object_object_add(j, "nth", json_object_new_int64((int64_t)o->st.nth));
	json_object_object_add(j, "at_ms", json_object_new_int64((int64_t)o->st.at_ms));
	json_object_object_add(j, "checkpoint_at_ms", json_object_new_int64((int64_t)o->st.checkpoint_at_ms));
	json_object_object_add(j, "lose_pct", json_object_new_double(o->st.lose_pct));
	json_object_object_add(j, "sector", json_object_new_int((int)o->st.sector));
	json_object_object_add(j, "grain", json_object_new_int64((int64_t)o->st.grain));
	json_object_object_add(j, "harness_error", o->harness_error ? json_object_new_string(o->error) : NULL);
	json_object_object_add(j, "trigger", json_object_new_string(o->fault_fired ? "fault" :
				o->checkpoint_fired ? "checkpoint" : "timer"));
	json_object_object_add(j, "crashed_at_start", json_object_new_boolean(o->crashed_at_start));
	json_object_object_add(j, "panic_before_restart", json_object_new_boolean(o->panic_seen));
	json_object_object_add(j, "in_checkpoint", json_object_new_boolean(o->in_checkpoint));
	json_object_object_add(j, "started", json_object_new_boolean(o->started));
	json_object_object_add(j, "start_failure", o->started ? NULL : json_object_new_string(o->start_failure));
	json_object_object_add(j, "pid_file_empty", json_object_new_boolean(o->pid_file_empty));
	json_object_object_add(j, "acked", json_object_new_int64((int64_t)o->acked));
	json_object_object_add(j, "in_flight", json_object_new_int64((int64_t)o->in_flight));
	json_object_object_add(j, "commits_lost", json_object_new_int64((int64_t)o->lost));
	json_object_object_add(j, "half_present", json_object_new_int64((int64_t)o->half));
	json_object_object_add(j, "unexpected", json_object_new_int64((int64_t)o->unexpected));
	json_object_object_add(j, "balances_ok", json_object_new_boolean(o->balances_ok));
	json_object_object_add(j, "ledger_detail", json_object_new_string(o->ledger_detail));
	if (o->load) {
		json_object_object_add(j, "load_findings", json_object_new_int((int)o->load_findings));
		json_object_object_add(j, "load_acked", json_object_new_int((int)o->load_acked));
		json_object_object_add(j, "load_last_ack", json_object_new_string(o->load_last_ack));
		json_object_object_add(j, "load_detail", json_object_new_string(o->load_detail));
	}
	json_object_object_add(j, "amcheck_exit", json_object_new_int(o->amcheck_rc));
	json_object_object_add(j, "amcheck_lines", json_object_new_int((int)o->amcheck_lines));
	json_object_object_add(j, "amcheck_first", json_object_new_string(o->amcheck_first));
	json_object_object_add(j, "recovery_ms", json_object_new_int64((int64_t)o->phase_ms[CRASH_PH_RECOVERY]));
	for (unsigned p = 0; p < CRASH_PHASES; p++)
		json_object_object_add(ph, crash_phase_name(p), json_object_new_int64((int64_t)o->phase_ms[p]));
	json_object_object_add(j, "phase_ms", ph);
	json_object_object_add(j, "damaged", json_object_new_boolean(o->damaged));
	crash_outcome_summary(o, line, sizeof(line));
	json_object_object_add(j, "summary", json_object_new_string(line));
	return j;
}

struct json_object *crash_report_json(const struct crash_report *r)
{
	struct json_object *j = json_object_new_object(), *states = json_object_new_array(),
			   *cfg = json_object_new_object(), *verdict = json_object_new_object();
	uint32_t page = r->c.page_bytes ? r->c.page_bytes : CRASH_PG_DEFAULT_PAGE_BYTES;
	struct crash_verdict v;
	char line[400];
	size_t run = 0;

	crash_report_verdict(r, &v);
	json_object_object_add(j, "tool", json_object_new_string("dutlab crash"));
	json_object_object_add(cfg, "seed", json_object_new_int64((int64_t)(r->c.seed & INT64_MAX)));
	json_object_object_add(cfg, "states", json_object_new_int((int)r->c.states));
	json_object_object_add(cfg, "control_states", json_object_new_int((int)r->c.control_states));
	json_object_object_add(cfg, "sector", json_object_new_int((int)r->c.sector));
	/* the server's block size: subset's grain and what the atomicity is judged against */
	json_object_object_add(cfg, "page_bytes", json_object_new_int((int)page));
	json_object_object_add(cfg, "page_source", json_object_new_string(r->page_source ? r->page_source : "default"));
	crash_class_loss_format(&r->c.class_loss, line, sizeof(line));
	json_object_object_add(cfg, "class_loss", line[0] ? json_object_new_string(line) : NULL);
	/* the PostgreSQL the clusters ran: a configuration's [postgres] version or bindir */
	json_object_object_add(cfg, "pg_bindir", r->pg_bindir ? json_object_new_string(r->pg_bindir) : NULL);
	if (r->atomic.have) {
		struct json_object *a = json_object_new_object();

		json_object_object_add(a, "power_fail_bytes", json_object_new_int64((int64_t)r->atomic.bytes));
		json_object_object_add(a, "source", json_object_new_string(r->atomic.source));
		json_object_object_add(a, "device", json_object_new_string(r->atomic.device));
		json_object_object_add(a, "pages_can_tear", json_object_new_boolean(r->atomic.bytes < page));
		json_object_object_add(cfg, "atomic_write", a);
	} else {
		json_object_object_add(cfg, "atomic_write", NULL);
	}
	crash_atomic_sentence(&r->atomic, r->c.sector ? r->c.sector : 512, page, line, sizeof(line));
	json_object_object_add(cfg, "atomicity", json_object_new_string(line));
	json_object_object_add(cfg, "workload_s", json_object_new_double(r->c.workload_s));
	json_object_object_add(cfg, "clients", json_object_new_int((int)r->c.clients));
	json_object_object_add(cfg, "experiment", r->experiment ? json_object_new_string(r->experiment) : NULL);
	json_object_object_add(cfg, "only_state", r->only_state >= 0 ? json_object_new_int(r->only_state) : NULL);
	json_object_object_add(j, "config", cfg);
	for (size_t i = 0; i < r->n; i++) {
		json_object_array_add(states, outcome_json(&r->o[i]));
		run += !r->o[i].harness_error;
	}
	json_object_object_add(j, "states", states);
	json_object_object_add(j, "elapsed_ms", json_object_new_int64((int64_t)r->elapsed_ms));
	json_object_object_add(j, "template_ms", json_object_new_int64((int64_t)r->template_ms));
	json_object_object_add(j, "states_per_minute",
			       json_object_new_double(r->elapsed_ms > r->template_ms && run ?
						      (double)run * 60000.0 / (double)(r->elapsed_ms - r->template_ms) : 0));
	json_object_object_add(verdict, "pass", json_object_new_boolean(v.pass));
	json_object_object_add(verdict, "why", json_object_new_string(v.why));
	json_object_object_add(verdict, "regular_states", json_object_new_int((int)v.regular));
	json_object_object_add(verdict, "regular_damaged", json_object_new_int((int)v.regular_damaged));
	json_object_object_add(verdict, "fpw_off_states", json_object_new_int((int)v.fpw_states));
	json_object_object_add(verdict, "fpw_off_detected", json_object_new_int((int)v.fpw_detected));
	json_object_object_add(verdict, "fsync_off_states", json_object_new_int((int)v.fsync_states));
	json_object_object_add(verdict, "fsync_off_detected", json_object_new_int((int)v.fsync_detected));
	if (v.first_failing >= 0) {
		json_object_object_add(verdict, "first_failing_state", json_object_new_int((int)r->o[v.first_failing].st.index));
		crash_repro_command(r, r->o[v.first_failing].st.index, line, sizeof(line));
		json_object_object_add(verdict, "reproduce", json_object_new_string(line));
	}
	json_object_object_add(j, "verdict", verdict);
	return j;
}
