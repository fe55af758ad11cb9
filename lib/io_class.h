/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O classes of PostgreSQL's files, one vocabulary for dutfs's shaping
 * rules (class = ...), dutfs's trace and dutlab's report: heap, index, toast,
 * fsm, vm, wal, slru, temp, other.  Pure.
 *
 * A relation's main fork is classed by its kind in the relation map: index
 * -> index, toast table or toast index -> toast, a kind the map calls
 * "other" -> other, every other kind (table, sequence, matview) -> heap.
 * Without a map, or for a relation it does not name, a main fork is heap.
 * Decided here once: the report and the shaping rules used to differ on
 * "other" (heap for shaping).
 */
#ifndef DUT_IO_CLASS_H
#define DUT_IO_CLASS_H

#include "lib/pgpath.h"
#include "lib/relmap.h"

enum dut_io_class {
	DUT_IO_HEAP = 0,
	DUT_IO_INDEX,
	DUT_IO_TOAST,
	DUT_IO_FSM,
	DUT_IO_VM,
	DUT_IO_WAL,
	DUT_IO_SLRU,
	DUT_IO_TEMP,
	DUT_IO_OTHER,
	DUT_IO_CLASS_COUNT
};

/* "heap", ...; NULL out of range. */
const char *dut_io_class_name(enum dut_io_class c);
/* 0, or -EINVAL for a name that is not a class. */
int dut_io_class_from_name(const char *name, enum dut_io_class *ret);
/* The class of a relation's main fork by its relation-map kind. */
enum dut_io_class dut_io_class_of_kind(enum relmap_kind k);
/*
 * The class of a classified file.  known_kind: whether kind is the
 * relation's kind from a relation map (false: no map, or not in it).
 */
enum dut_io_class dut_io_class_of_file(const struct dut_pg_file *pg, bool known_kind, enum relmap_kind kind);

#endif
