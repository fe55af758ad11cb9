/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay lag samples and their summary (pure; see lag.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/lag.h"

struct pgl_standby_lag *pgl_replica_lag_find(struct pgl_replica_lag *rl, const char *name)
{
	for (unsigned i = 0; i < rl->nstandbys; i++)
		if (strcmp(rl->sb[i].name, name) == 0)
			return &rl->sb[i];
	return NULL;
}

static struct pgl_standby_lag *find_or_add(struct pgl_replica_lag *rl, const char *name,
					   const char *state, const char *sync_state)
{
	struct pgl_standby_lag *l = pgl_replica_lag_find(rl, name);

	if (l)
		return l;
	if (rl->nstandbys >= PGL_LAG_MAX_STANDBYS)
		return NULL;
	l = &rl->sb[rl->nstandbys++];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->state, sizeof(l->state), "%s", state ? state : "");
	snprintf(l->sync_state, sizeof(l->sync_state), "%s", sync_state ? sync_state : "");
	return l;
}

int pgl_replica_lag_add(struct pgl_replica_lag *rl, const char *name, const char *state,
			const char *sync_state, const struct pgl_lag_sample *smp)
{
	struct pgl_standby_lag *l = find_or_add(rl, name, state, sync_state);

	if (!l) {
		rl->dropped_standbys++;
		return 0;
	}
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		struct pgl_lag_sample *ns = realloc(l->s, ncap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		l->s = ns;
		l->cap = ncap;
	}
	l->s[l->n++] = *smp;
	if (!smp->has_times)
		l->idle_samples++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of the values at or below it. */
static double rank(const double *sorted, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100.0 * (double)n);

	return sorted[k ? k - 1 : 0];
}

int pgl_standby_lag_summarize(const struct pgl_standby_lag *l, struct pgl_lag_summary *ret)
{
	struct pgl_lag_summary s;
	double *v = NULL;

	memset(&s, 0, sizeof(s));
	if (l->n && !(v = malloc(l->n * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		const struct pgl_lag_sample *x = &l->s[i];

		if (x->has_bytes) {
			if (s.n_bytes == 0 || x->replay_bytes > s.replay_bytes_max)
				s.replay_bytes_max = x->replay_bytes;
			s.n_bytes++;
		}
		if (!x->has_times)
			continue;
		v[s.n_times++] = x->replay_ms;
		if (x->flush_ms > s.flush_max_ms)
			s.flush_max_ms = x->flush_ms;
		if (x->write_ms > s.write_max_ms)
			s.write_max_ms = x->write_ms;
	}
	if (s.n_times) {
		qsort(v, s.n_times, sizeof(*v), cmp_double);
		s.replay_p50_ms = rank(v, s.n_times, 50);
		s.replay_p99_ms = rank(v, s.n_times, 99);
		s.replay_max_ms = v[s.n_times - 1];
	}
	free(v);
	*ret = s;
	return 0;
}

const char *pgl_standby_lag_mode(const struct pgl_standby_lag *l)
{
	return strcmp(l->sync_state, "sync") == 0 || strcmp(l->sync_state, "quorum") == 0 ?
		"sync" : "async";
}

int pgl_replica_lag_main(const struct pgl_replica_lag *rl)
{
	for (unsigned i = 0; i < rl->nstandbys; i++)
		if (strcmp(pgl_standby_lag_mode(&rl->sb[i]), "sync") == 0)
			return (int)i;
	return rl->nstandbys ? 0 : -1;
}

const char *pgl_replica_lag_mode(const struct pgl_replica_lag *rl)
{
	int m = pgl_replica_lag_main(rl);

	return m < 0 ? "none" : pgl_standby_lag_mode(&rl->sb[m]);
}

void pgl_replica_lag_free(struct pgl_replica_lag *rl)
{
	for (unsigned i = 0; i < rl->nstandbys; i++)
		free(rl->sb[i].s);
	memset(rl, 0, sizeof(*rl));
}
