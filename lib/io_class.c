/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The I/O class vocabulary: see io_class.h. */
#include <errno.h>
#include <string.h>

#include "lib/io_class.h"

static const char *const names[DUT_IO_CLASS_COUNT] = {
	[DUT_IO_HEAP] = "heap", [DUT_IO_INDEX] = "index", [DUT_IO_TOAST] = "toast",
	[DUT_IO_FSM] = "fsm",   [DUT_IO_VM] = "vm",       [DUT_IO_WAL] = "wal",
	[DUT_IO_SLRU] = "slru", [DUT_IO_TEMP] = "temp",   [DUT_IO_OTHER] = "other",
};

const char *dut_io_class_name(enum dut_io_class c)
{
	return (unsigned)c < DUT_IO_CLASS_COUNT ? names[c] : NULL;
}

int dut_io_class_from_name(const char *name, enum dut_io_class *ret)
{
	for (unsigned i = 0; i < DUT_IO_CLASS_COUNT; i++) {
		if (strcmp(name, names[i]) == 0) {
			*ret = (enum dut_io_class)i;
			return 0;
		}
	}
	return -EINVAL;
}

enum dut_io_class dut_io_class_of_kind(enum relmap_kind k)
{
	switch (k) {
	case RELMAP_INDEX:
		return DUT_IO_INDEX;
	case RELMAP_TOAST:
	case RELMAP_TOAST_INDEX:
		return DUT_IO_TOAST;
	case RELMAP_OTHER:
		return DUT_IO_OTHER;
	default:
		return DUT_IO_HEAP;
	}
}

enum dut_io_class dut_io_class_of_file(const struct dut_pg_file *pg, bool known_kind, enum relmap_kind kind)
{
	switch (pg->cls) {
	case DUT_PG_REL:
		if (pg->fork == DUT_PG_FORK_FSM)
			return DUT_IO_FSM;
		if (pg->fork == DUT_PG_FORK_VM)
			return DUT_IO_VM;
		return known_kind ? dut_io_class_of_kind(kind) : DUT_IO_HEAP;
	case DUT_PG_TEMP_REL:
	case DUT_PG_TEMP_FILE:
		return DUT_IO_TEMP;
	case DUT_PG_WAL:
	case DUT_PG_WAL_OTHER:
		return DUT_IO_WAL;
	case DUT_PG_XACT:
	case DUT_PG_MULTIXACT:
	case DUT_PG_SLRU:
		return DUT_IO_SLRU;
	default:
		return DUT_IO_OTHER;
	}
}
