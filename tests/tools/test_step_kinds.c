/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The two halves of each step kind (tools/kinds/<kind>.c, compiled once per
 * half) find each other by name: every kind of the orchestrator
 * (tools/run/steps/steps.c) has the report's ops (tools/report/rundir_kinds.c)
 * with the same .step_kind, and back; and the
 * document kinds the report recognises (all but "other") each have ops,
 * a label and a way to recognise their documents.
 */
#include <string.h>

#include "tests/cu_main.h"
#include "tools/report/rundir_kinds.h"
#include "tools/run/experiment.h"
#include "tools/kinds/step_kinds.h"

/* enum rundir_doc_kind, DOC_OTHER excluded: every kind of tools/kinds/meson.build */
#define KIND_VALUE(k) DOC_##k,
static const enum rundir_doc_kind doc_kinds[] = { DUTLAB_STEP_KINDS(KIND_VALUE) };

static void test_every_document_kind_has_ops(void)
{
	CU_ASSERT_PTR_NULL(rundir_kind_ops_of(DOC_OTHER));
	for (size_t i = 0; i < sizeof(doc_kinds) / sizeof(doc_kinds[0]); i++) {
		const struct rundir_kind_ops *o = rundir_kind_ops_of(doc_kinds[i]);

		CU_CHECK(o && o->kind == doc_kinds[i] && o->table, "%s: no report ops with a table",
			 rundir_doc_kind_name(doc_kinds[i]));
		CU_CHECK(!o || (o->label && o->doc_tool && (o->recognise || (o->doc_key && o->doc_value))),
			 "%s: a kind needs a label and a way to recognise its documents",
			 rundir_doc_kind_name(doc_kinds[i]));
		CU_CHECK(!o || (o->step_kind && dut_step_type_find(o->step_kind)),
			 "%s: its step_kind %s is no kind of the orchestrator", rundir_doc_kind_name(doc_kinds[i]),
			 o && o->step_kind ? o->step_kind : "(none)");
	}
}

static void test_every_step_kind_has_report_ops(void)
{
	for (size_t k = 0; k < dut_step_ntypes; k++) {
		const char *name = dut_step_types[k]->name;
		size_t found = 0;

		for (size_t i = 0; i < sizeof(doc_kinds) / sizeof(doc_kinds[0]); i++) {
			const struct rundir_kind_ops *o = rundir_kind_ops_of(doc_kinds[i]);

			found += o && o->step_kind && strcmp(o->step_kind, name) == 0;
		}
		CU_CHECK(found == 1, "step kind %s: %zu report ops name it, expected 1", name, found);
	}
}

static const struct cu_test tests[] = {
	{ "every_document_kind_has_ops", test_every_document_kind_has_ops },
	{ "every_step_kind_has_report_ops", test_every_step_kind_has_report_ops },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "step_kinds", .tests = tests };
