/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The charts of a run (tools/report/chart.c, pure) on synthetic run models
 * (issue #18): no point for a partial last second, a run shorter than a
 * second still drawn (its rate over its real length), the connection
 * set-up of a connection-bound step on the time axis, legends that name the
 * configuration and the repetition, titles broken into lines gnuplot does
 * not cut.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tests/cu_main.h"
#include "tools/report/chart.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct charts *, charts_free)

#define LONG_NAME "ext4-ordered+tables-on-slow-hdd+indexes-on-fast-nvme+set.random_page_cost=1.1"

/* One configuration, two repetitions of step "rw" (one document each). */
static struct rundir_model *model(const char *cfg_name)
{
	char text[4096];
	struct dut_error err = { { 0 } };
	struct rundir_model *m = NULL;

	snprintf(text, sizeof(text),
		 "{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"},"
		 "\"status\":\"complete\",\"configs\":[{\"index\":0,\"name\":\"%s\",\"dir\":\"c00-a\","
		 "\"status\":\"complete\",\"reps\":["
		 "{\"rep\":1,\"dir\":\"c00-a/rep1\",\"status\":\"complete\",\"steps\":[{\"name\":\"rw\","
		 "\"status\":\"ok\",\"results\":[\"rw.json\"]}]},"
		 "{\"rep\":2,\"dir\":\"c00-a/rep2\",\"status\":\"complete\",\"steps\":[{\"name\":\"rw\","
		 "\"status\":\"ok\",\"results\":[\"rw.json\"]}]}]}]}", cfg_name);
	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0)
		cu_fail("manifest: %s", err.msg);
	return m;
}

/* A pgload run document: the run's duration, its connection set-up, per-second rows "[t,tps,lat]". */
static struct dut_result *oltp_doc(double run_s, double conn_s, const char *rows)
{
	char text[4096];
	struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };

	snprintf(text, sizeof(text),
		 "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"tool\":{\"name\":\"pgload\","
		 "\"version\":\"0\"},\"config\":{\"workload\":\"oltp\"},\"phases\":[{\"name\":\"run\","
		 "\"duration_ns\":%.0f,\"metrics\":{\"tps\":{\"value\":1000,\"unit\":\"tx/s\"},"
		 "\"connection_time_total\":{\"value\":%.0f,\"unit\":\"ns\"}},"
		 "\"series\":{\"per_second\":{\"columns\":[\"t_s\",\"tps\",\"lat_avg_ms\"],"
		 "\"units\":[\"s\",\"tx/s\",\"ms\"],\"rows\":[%s]}}}]}",
		 run_s * 1e9, conn_s * 1e9, rows);
	if (dut_result_parse(text, strlen(text), &r, &err) < 0)
		cu_fail("document: %s\n%s", err.msg, text);
	return r;
}

static const struct chart *chart_named(const struct charts *cs, const char *prefix)
{
	for (size_t i = 0; cs && i < cs->n; i++)
		if (strncmp(cs->v[i].name, prefix, strlen(prefix)) == 0)
			return &cs->v[i];
	return NULL;
}

/* The data lines (not comments) of a data file. */
static unsigned data_lines(const char *text)
{
	unsigned n = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != '#' && *p != '\n';
	return n;
}

/* The first number of the first data line. */
static double first_x(const char *text)
{
	const char *p = text;

	while (*p == '#')
		p = strchr(p, '\n') + 1;
	return strtod(p, NULL);
}

static void test_partial_last_second_dropped_and_legends_name_reps(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("ext4-ordered");
	_cleanup_(charts_freep) struct charts *cs = NULL;
	const struct chart *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	/* 3.007 s: rows for seconds 1, 2, 3 and 8 transactions in the last 7 ms */
	m->configs[0].reps[0].steps[0].docs[0].doc =
		oltp_doc(3.007, 0.01, "[1,1462,5.4],[2,1447,5.5],[3,1469,5.4],[4,8,3.8]");
	m->configs[0].reps[1].steps[0].docs[0].doc =
		oltp_doc(3.0, 0.01, "[1,1500,5.4],[2,1510,5.5],[3,1490,5.4]");
	CU_ASSERT_EQUAL_FATAL(charts_build(m, &cs), 0);
	c = chart_named(cs, "oltp-rw-");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(c->ndata, 2);
	CU_CHECK(data_lines(c->data[0].text) == 3, "rep 1: the partial last second is charted:\n%s",
		 c->data[0].text);
	CU_CHECK(!strstr(c->data[0].text, " 8 "), "rep 1: the 8 transactions of 7 ms are a point:\n%s",
		 c->data[0].text);
	CU_CHECK(data_lines(c->data[1].text) == 3, "rep 2: a whole last second is lost:\n%s", c->data[1].text);
	CU_CHECK(strstr(c->script, "title 'ext4-ordered rep 1'") && strstr(c->script, "title 'ext4-ordered rep 2'"),
		 "legends:\n%s", c->script);
	CU_CHECK(!strstr(c->script, "document"), "a legend says document:\n%s", c->script);
	/* a short connection set-up is not shaded */
	CU_CHECK(!strstr(c->script, "set object 1 rectangle"), "shaded:\n%s", c->script);
}

/* 100 clients, 10 transactions each: 2 s of connecting, 0.4 s of transactions (rep 2: 2.5 s, 0.5 s). */
static void test_connect_bound_run_shorter_than_a_second_is_charted(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("usb");
	_cleanup_(charts_freep) struct charts *cs = NULL;
	const struct chart *c;
	double x;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->configs[0].reps[0].steps[0].docs[0].doc = oltp_doc(0.4, 2.0, "[1,1000,40.0]");
	m->configs[0].reps[1].steps[0].docs[0].doc = oltp_doc(0.5, 2.5, "[1,1000,50.0]");
	CU_ASSERT_EQUAL_FATAL(charts_build(m, &cs), 0);
	c = chart_named(cs, "oltp-rw-");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(c->ndata, 2);
	CU_CHECK(data_lines(c->data[0].text) == 1, "the run of 0.4 s has no point:\n%s", c->data[0].text);
	x = first_x(c->data[0].text);
	CU_CHECK(x > 2.39 && x < 2.41, "its point is at %g s, not at the end of the step (2.4 s)", x);
	/* 1,000 transactions in 0.4 s */
	CU_CHECK(strstr(c->data[0].text, " 2500 "), "not scaled to its real length:\n%s", c->data[0].text);
	/* each run's set-up, shaded: rep 1 connected in 2 s, rep 2 in 2.5 s */
	CU_CHECK(strstr(c->script, "set object 1 rectangle from 0, graph 0 to 2, graph 1"),
		 "the connection set-up is not shown:\n%s", c->script);
	CU_CHECK(strstr(c->script, "set object 2 rectangle from 0, graph 0 to 2.5, graph 1"),
		 "the second run's connection set-up is not shown:\n%s", c->script);
	CU_CHECK(strstr(c->script, "'connection set-up (2.00-2.50 s)'"), "no label:\n%s", c->script);
}

/* Every piece of a title is at most 90 characters, and the whole title is there. */
static void test_long_titles_are_broken_not_cut(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model(LONG_NAME);
	_cleanup_(charts_freep) struct charts *cs = NULL;
	const struct chart *c;
	const char *line, *p;
	size_t total = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->configs[0].reps[0].steps[0].docs[0].doc = oltp_doc(2.0, 0.01, "[1,100,1.0],[2,100,1.0]");
	CU_ASSERT_EQUAL_FATAL(charts_build(m, &cs), 0);
	c = chart_named(cs, "oltp-rw-");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_FATAL(strlen(c->title) > 90);
	line = strstr(c->script, "set multiplot layout 2,1 title ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	line += strlen("set multiplot layout 2,1 title ");
	CU_CHECK(strstr(line, "'.\"\\n\".'") != NULL, "not broken: %.300s", line);
	for (p = line; *p == '\''; ) {
		const char *end = strchr(p + 1, '\'');

		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		CU_CHECK(end - p - 1 <= 90, "a title line of %d characters: %.*s", (int)(end - p - 1),
			 (int)(end - p - 1), p + 1);
		total += (size_t)(end - p - 1) + 1;
		p = end + 1;
		if (strncmp(p, ".\"\\n\".", 6) == 0)
			p += 6;
	}
	CU_CHECK(total == strlen(c->title) + 1, "pieces of %zu characters for a title of %zu", total,
		 strlen(c->title));
	CU_CHECK(strstr(c->script, "title '" LONG_NAME " rep 1'"), "legend:\n%s", c->script);
}

static const struct cu_test tests[] = {
	{ "partial_last_second_dropped_and_legends_name_reps", test_partial_last_second_dropped_and_legends_name_reps },
	{ "connect_bound_run_shorter_than_a_second_is_charted", test_connect_bound_run_shorter_than_a_second_is_charted },
	{ "long_titles_are_broken_not_cut", test_long_titles_are_broken_not_cut },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "charts", .tests = tests };
