/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What cluster.c, cluster_init.c and cluster_state.c share and nobody else uses. */
#ifndef PGLOAD_CLUSTER_PRIV_H
#define PGLOAD_CLUSTER_PRIV_H

#include <stddef.h>

/* nhex random hex digits and a NUL into buf (getrandom): 0 or -errno */
int pgl_cluster_random_hex(char *buf, size_t nhex);

struct pgl_cluster;
struct dut_error;
/* --listen-tcp (cluster_pass.c): a new password, set on the running server and
 * written to the passfile for its port alone; 0 or -errno (0 without TCP). */
int pgl_cluster_tcp_password_new(struct pgl_cluster *c, struct dut_error *err);
/* The passfile emptied (after a stop): no password while no server of ours holds the port. */
void pgl_cluster_tcp_password_clear(const struct pgl_cluster *c);

#endif
