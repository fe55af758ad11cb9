/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab crash: the plan of a campaign (pure).
 *
 * A state is derived from (campaign seed, state index) alone, so a state can
 * be re-run on its own (dutlab crash --seed S --state I) and gets the same
 * crash point and loss.  A state is:
 *   - a crash point: after the Nth write (or fsync) of a class of files, as a
 *     dutfs crash fault with nth = N, or at a time into the workload (the
 *     control command `crash`);
 *   - a loss mode: what the crash discards of the data written since each
 *     file's last fsync, as a dutfs `unsynced` fault; drawn per state, or
 *     fixed per class of files for every state (--class-loss
 *     wal=lose-none,data=torn: a rule and a fault per mode);
 *   - a CHECKPOINT time, so data files and pg_control are written.
 * Points and losses are stratified (state i takes the next (point, loss)
 * pair in a fixed order of all of them, from a seeded offset): any P x L
 * consecutive states, P points and L losses, cover every pair once (the
 * default: 9 x 5 = 45 states); the rest (N, times, loss draws) is random
 * from the state's seed.
 * The plan also renders the state's dutfs rules file.
 *
 * Negative controls are states with PostgreSQL set up to be unsafe:
 * full_page_writes = off with pages torn at 4 KiB (damage expected:
 * checksum or amcheck errors, or no start), and fsync = off (lost commits
 * expected).  A campaign fails when a control sees no damage.
 */
#ifndef DUTLAB_CRASH_PLAN_H
#define DUTLAB_CRASH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io_class.h"

enum crash_point {
	CRASH_AT_WAL_WRITE = 0,
	CRASH_AT_WAL_FSYNC,
	CRASH_AT_HEAP_WRITE,
	CRASH_AT_INDEX_WRITE,
	CRASH_AT_DATA_FSYNC,     /* heap, index, toast, fsm, vm and SLRU files: fsynced by checkpoints */
	CRASH_AT_PG_CONTROL,
	CRASH_AT_SLRU_WRITE,     /* pg_xact, pg_subtrans, pg_multixact, ...: written at checkpoints */
	CRASH_AT_CHECKPOINT,     /* ckpt_delay_ms after the state's CHECKPOINT starts (server log) */
	CRASH_AT_TIME,
	/* during `pgload init -s 1` and its CHECKPOINT in an empty cluster (crash_load.h):
	 * after the Nth write to any file; not in the default set (--points init) */
	CRASH_AT_INIT,
	CRASH_POINTS
};
/* The points a campaign takes when none are named: all but init. */
#define CRASH_POINTS_DEFAULT ((1u << CRASH_AT_INIT) - 1)

enum crash_loss {
	CRASH_LOSS_ALL = 0,      /* every unsynced byte lost, in-flight writes lost whole */
	CRASH_LOSS_NONE,         /* no unsynced byte lost (in-flight writes still lost) */
	CRASH_LOSS_SUBSET,       /* each unsynced page lost with probability lose_pct: out of order */
	CRASH_LOSS_TORN,         /* each unsynced sector lost on its own: pages torn at the sector size */
	/*
	 * the Nth fsync of the classes in this mode fails with EIO (of wal, the
	 * data files and slru: the others are fsynced at the start too, where
	 * an EIO is a failed start, not a crash state); what it should have
	 * synced is lost, and at the crash every unsynced byte
	 */
	CRASH_LOSS_FSYNC_EIO,
	CRASH_LOSSES
};

enum crash_control {
	CRASH_CONTROL_NONE = 0,  /* a regular state: no damage expected */
	CRASH_CONTROL_FPW_OFF,   /* full_page_writes = off, 4 KiB torn pages: damage expected */
	CRASH_CONTROL_FSYNC_OFF, /* fsync = off: lost commits expected */
};

/* The data files: heap, index, toast, fsm, vm ("data" in --class-loss). */
#define CRASH_CLASSES_DATA (1u << DUT_IO_HEAP | 1u << DUT_IO_INDEX | 1u << DUT_IO_TOAST | 1u << DUT_IO_FSM | \
			    1u << DUT_IO_VM)
#define CRASH_CLASSES_ALL ((1u << DUT_IO_CLASS_COUNT) - 1)
/* The classes whose fsyncs fsync-eio fails: WAL, the data files, SLRU. */
#define CRASH_CLASSES_EIO (CRASH_CLASSES_DATA | 1u << DUT_IO_WAL | 1u << DUT_IO_SLRU)

/* Loss modes fixed per class of files for every regular state (--class-loss). */
struct crash_class_loss {
	uint32_t fixed;                     /* bit per enum dut_io_class */
	uint8_t loss[DUT_IO_CLASS_COUNT];   /* enum crash_loss of each fixed class */
};

struct crash_campaign {
	uint64_t seed;
	unsigned states;          /* regular states */
	unsigned control_states;  /* per negative control (0: none) */
	uint32_t points_mask;     /* bit per enum crash_point; 0 = CRASH_POINTS_DEFAULT */
	uint32_t losses_mask;     /* bit per enum crash_loss; 0 = all */
	uint32_t sector;          /* torn mode's sector (the device's atomic unit); 0 = 512 */
	uint32_t page_bytes;      /* the server's block size (subset's grain); 0 = 8 KiB */
	struct crash_class_loss class_loss;  /* fixed per class; the other classes take the drawn mode */
	double workload_s;        /* ledger run duration */
	unsigned clients;
};

struct crash_state {
	unsigned index;           /* 0.. states-1, then the controls */
	uint64_t seed;            /* this state's seed (faults, workload) */
	enum crash_control control;
	enum crash_point point;
	enum crash_loss loss;     /* the drawn mode: of every class class_loss does not fix */
	struct crash_class_loss class_loss;  /* the campaign's (none in a control) */
	uint64_t nth;             /* the crash fault's nth (not for CRASH_AT_TIME) */
	uint64_t at_ms;           /* CRASH_AT_TIME: into the workload; else the fallback crash time */
	uint64_t checkpoint_at_ms;
	uint64_t ckpt_delay_ms;   /* CRASH_AT_CHECKPOINT: after "checkpoint starting:" in the log */
	uint64_t eio_nth;         /* CRASH_LOSS_FSYNC_EIO: the Nth fsync of its classes fails */
	double lose_pct;          /* of the drawn mode */
	uint32_t sector;          /* in-flight writes torn at this size */
	uint32_t page_bytes;      /* the server's block size */
	uint64_t grain;           /* of the drawn mode: 0, or the unit a loss is drawn for */
	double fixed_subset_pct;  /* lose_pct of classes fixed at subset when the drawn mode is another */
};

void crash_campaign_defaults(struct crash_campaign *c);
unsigned crash_campaign_total(const struct crash_campaign *c);

/* State index of campaign c (0 <= index < crash_campaign_total(c)). */
void crash_plan_state(const struct crash_campaign *c, unsigned index, struct crash_state *ret);

/* The loss mode of class c in state s: the fixed one, else the drawn one. */
enum crash_loss crash_state_class_loss(const struct crash_state *s, enum dut_io_class c);
/* The classes whose loss mode in state s is l (a mask of enum dut_io_class). */
uint32_t crash_state_loss_classes(const struct crash_state *s, enum crash_loss l);

/*
 * The state's dutfs rules file (crash_rules.c): the harness's files left
 * alone, an unsynced fault per loss mode present (the drawn one "loss", a
 * fixed one "loss-MODE") with a rule for its classes, the crash point's
 * rule split by those classes (dutfs takes the first rule that matches a
 * request: a class's writes must meet its own loss), the EIO of fsync-eio.
 * -ENOSPC when len is too small.
 */
int crash_state_rules(const struct crash_state *s, char *buf, size_t len);
/*
 * "wal=lose-none,data=torn" into cl: CLASS=MODE items, CLASS a dutfs class
 * (heap, index, toast, fsm, vm, wal, slru, temp, other) or data (heap,
 * index, toast, fsm and vm), MODE a loss mode; a class at most once.
 * -EINVAL with why set.
 */
int crash_class_loss_parse(const char *s, struct crash_class_loss *ret, char *why, size_t why_len);
/* cl in that syntax (data for the five data classes in one mode), "" when none is fixed. */
void crash_class_loss_format(const struct crash_class_loss *cl, char *buf, size_t len);
/* PostgreSQL settings of the state's control ("" for none). */
const char *crash_control_settings(enum crash_control c);

const char *crash_point_name(enum crash_point p);
const char *crash_loss_name(enum crash_loss l);
const char *crash_control_name(enum crash_control c);
/* "wal-write" -> CRASH_AT_WAL_WRITE; -EINVAL */
int crash_point_parse(const char *s, enum crash_point *ret);
int crash_loss_parse(const char *s, enum crash_loss *ret);
/* A comma-separated list of names into a mask; -EINVAL (bad names the first unknown one). */
int crash_points_parse_list(const char *s, uint32_t *ret_mask, char *bad, size_t bad_len);
int crash_losses_parse_list(const char *s, uint32_t *ret_mask, char *bad, size_t bad_len);

#endif
