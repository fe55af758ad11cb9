/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shaping rules file (docs/shaping.md has the user's guide):
 *
 *     [model slowdisk]          ; a named device model
 *     type = hdd                ; fixed | bandwidth | queue | hdd | ssd
 *     rpm = 7200
 *     ...
 *     [fault flaky]             ; a named fault (fuse/shape/fault.h)
 *     type = error
 *     errno = EIO
 *     probability = 0.1%
 *     [rule wal]                ; rules apply in file order, first match wins
 *     class = wal               ; heap index toast fsm vm wal slru temp other
 *     path = pg_wal/?*          ; fnmatch glob on the path from the mount root
 *     op = write, fsync         ; read write fsync fdatasync open create release
 *                               ; flush truncate fallocate punch unlink rename,
 *                               ; or the groups data (read, write), sync, all
 *     model = slowdisk          ; and/or
 *     fault = flaky             ; one or more faults, comma-separated
 *
 * A rule without class, path or op matches every class, path or op.
 * Parsed with libinih from memory; every error names the file and line,
 * what was expected and what was found.
 */
#ifndef DUTFS_SHAPE_RULES_H
#define DUTFS_SHAPE_RULES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuse/shape/fault.h"
#include "fuse/shape/shape.h"
#include "lib/error.h"

#define SHAPE_NAME_MAX 64
#define SHAPE_RULE_FAULTS_MAX 8

struct shape_rule {
	char *name;
	unsigned line;
	uint32_t class_mask;     /* bit per enum shape_class */
	uint32_t op_mask;        /* bit per enum shape_op */
	char *glob;              /* NULL: any path */
	struct shape_model *model;   /* NULL: no delay */
	struct shape_fault *faults[SHAPE_RULE_FAULTS_MAX];
	unsigned nfaults;
	/* live counters */
	atomic_uint_fast64_t matched;
	atomic_uint_fast64_t delay_ns;
	atomic_uint_fast64_t faults_fired;
};

struct shape_rules {
	char *source;            /* file name used in messages */
	struct shape_model **models;
	unsigned nmodels;
	struct shape_fault **faults;
	unsigned nfaults;
	struct shape_rule *rules;
	unsigned nrules;
};

#define SHAPE_CLASS_ALL ((1u << SHAPE_CLASS_COUNT) - 1)
#define SHAPE_OP_ALL ((1u << SHAPE_OP_COUNT) - 1)

/* Parse len bytes of text; source names it in messages ("shape.ini"). */
int shape_rules_parse(const char *text, size_t len, const char *source,
		      struct shape_rules **ret, struct dut_error *err);
/* Read and parse a file (rules_file.c: the only I/O of this library besides timerq.c). */
int shape_rules_load(const char *path, struct shape_rules **ret, struct dut_error *err);
void shape_rules_free(struct shape_rules *rs);

bool shape_rule_matches(const struct shape_rule *r, enum shape_class cls, const char *path,
			enum shape_op op);
/* The first rule that matches, or NULL. */
struct shape_rule *shape_rules_match(struct shape_rules *rs, enum shape_class cls,
				     const char *path, enum shape_op op);

struct shape_model *shape_rules_model(const struct shape_rules *rs, const char *name);
struct shape_fault *shape_rules_fault(const struct shape_rules *rs, const char *name);

#endif
