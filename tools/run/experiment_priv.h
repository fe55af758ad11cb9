/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the experiment parser, the step table and the planner. */
#ifndef DUTLAB_RUN_EXPERIMENT_PRIV_H
#define DUTLAB_RUN_EXPERIMENT_PRIV_H

#include "tools/run/experiment.h"

/* Whether s is one of the NULL-terminated words; its index, or -1. */
int exp_word_index(const char *const *words, const char *s);
/* The closest of words to s (edit distance <= 2, or a third of its length), or NULL. */
const char *exp_did_you_mean(const char *const *words, size_t n, const char *s);
/* Append ' (did you mean "x"?)' to buf when a suggestion exists. */
void exp_suggest(char *buf, size_t len, const char *const *words, size_t n, const char *s);
/* "a, b or c" into buf. */
const char *exp_join_words(const char *const *words, char *buf, size_t len);
/* yes/no/true/false/on/off/1/0; -EINVAL otherwise. */
int exp_parse_bool(const char *s, bool *ret);

/* Check and convert one step parameter value; msg gets the reason on -EINVAL. */
int exp_param_parse(const struct dut_param_spec *p, const char *text, struct dut_param_value *v,
		    const struct dut_experiment *e, char *msg, size_t len);

/* Build the plan; with err, a configuration that cannot run is an error
 * citing the line of the key that makes it so (the parser validates with it). */
int exp_plan_build(const struct dut_experiment *e, struct dut_plan **ret, struct dut_error *err);

/* Estimated time of creating a filesystem, mounting, initdb, ...: constants. */
#define EXP_SETUP_MKFS_NS (5ull * 1000000000)
#define EXP_SETUP_INITDB_NS (10ull * 1000000000)
#define EXP_SETUP_REPLICA_NS (15ull * 1000000000)
#define EXP_SETUP_TEARDOWN_NS (5ull * 1000000000)

#endif
