/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Notes that library code keeps for the program to print (pgload/notes.h). */
#include <stdio.h>
#include <string.h>

#include "pgload/notes.h"
#include "tests/cu_main.h"

/* The first PGL_NOTES_MAX are kept as formatted, in order; the rest only counted. */
static void test_keeps_the_first_and_counts_the_rest(void)
{
	struct pgl_notes n = { .n = 0 };
	char want[32];

	for (unsigned i = 0; i < PGL_NOTES_MAX + 3; i++)
		pgl_note(&n, "marker %u refused: %s", i, "EIO");
	CU_ASSERT_EQUAL(n.n, PGL_NOTES_MAX);
	CU_ASSERT_EQUAL(n.more, 3);
	for (unsigned i = 0; i < PGL_NOTES_MAX; i++) {
		snprintf(want, sizeof(want), "marker %u refused: EIO", i);
		CU_CHECK(strcmp(n.v[i].msg, want) == 0, "note %u: \"%s\", want \"%s\"", i, n.v[i].msg, want);
	}
}

/* A note longer than a message is cut, not written past its slot. */
static void test_long_note_is_cut(void)
{
	struct pgl_notes n = { .n = 0 };
	char big[2 * sizeof(n.v[0].msg)];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pgl_note(&n, "%s", big);
	pgl_note(&n, "second");
	CU_ASSERT_EQUAL(n.n, 2);
	CU_ASSERT_EQUAL(strlen(n.v[0].msg), sizeof(n.v[0].msg) - 1);
	CU_ASSERT_STRING_EQUAL(n.v[1].msg, "second");
}

static const struct cu_test tests[] = {
	{ "keeps_the_first_and_counts_the_rest", test_keeps_the_first_and_counts_the_rest },
	{ "long_note_is_cut", test_long_note_is_cut },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_notes", .tests = tests };
