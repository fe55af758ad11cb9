/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What cluster.c, cluster_init.c and cluster_state.c share and nobody else uses. */
#ifndef PGLOAD_CLUSTER_PRIV_H
#define PGLOAD_CLUSTER_PRIV_H

#include <stddef.h>

/* nhex random hex digits and a NUL into buf (getrandom): 0 or -errno */
int pgl_cluster_random_hex(char *buf, size_t nhex);

#endif
