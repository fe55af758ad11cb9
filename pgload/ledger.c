/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ledger's pure part: client files, the check, its renderers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/ledger.h"

int pgl_ids_add(struct pgl_ids *a, int64_t id)
{
	if (a->n == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 256;
		int64_t *n = realloc(a->v, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->v = n;
		a->cap = ncap;
	}
	a->v[a->n++] = id;
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

void pgl_ids_sort(struct pgl_ids *a)
{
	size_t out = 0;

	if (a->n > 1)
		qsort(a->v, a->n, sizeof(a->v[0]), cmp_i64);
	for (size_t i = 0; i < a->n; i++)
		if (!out || a->v[out - 1] != a->v[i])
			a->v[out++] = a->v[i];
	a->n = out;
}

bool pgl_ids_has(const struct pgl_ids *a, int64_t id)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->v[mid] == id)
			return true;
		if (a->v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void pgl_ids_free(struct pgl_ids *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

int pgl_ledger_parse(struct pgl_ledger *l, const char *text, size_t len, const char *name,
		     struct dut_error *err)
{
	size_t pos = 0;
	unsigned line = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		char buf[64], kind, *end;
		long long id;

		line++;
		pos += n + (nl ? 1 : 0);
		if (!nl) {
			/* a line without its newline: the writer died inside write(); the
			 * fdatasync that follows each line never ran, so it counts for nothing */
			l->partial_lines++;
			break;
		}
		if (n == 0 || n >= sizeof(buf))
			goto bad;
		memcpy(buf, s, n);
		buf[n] = 0;
		kind = buf[0];
		if ((kind != 'B' && kind != 'C') || buf[1] != ' ')
			goto bad;
		errno = 0;
		id = strtoll(buf + 2, &end, 10);
		if (errno || end == buf + 2 || *end || id <= 0)
			goto bad;
		if (pgl_ids_add(kind == 'B' ? &l->begun : &l->acked, id) < 0)
			return -ENOMEM;
		continue;
bad:
		dut_error_set(err, "%s:%u: expected \"B ID\" or \"C ID\" (a positive whole number), found \"%.*s\"",
			      name, line, (int)(n > 40 ? 40 : n), s);
		return -EINVAL;
	}
	return 0;
}

void pgl_ledger_free(struct pgl_ledger *l)
{
	pgl_ids_free(&l->begun);
	pgl_ids_free(&l->acked);
}

void pgl_ledger_db_free(struct pgl_ledger_db *d)
{
	pgl_ids_free(&d->txn);
	pgl_ids_free(&d->item);
}

static void note(int64_t *ex, uint64_t count, int64_t id)
{
	if (count <= PGL_LEDGER_EXAMPLES)
		ex[count - 1] = id;
}

static void check_balances(const struct pgl_ledger_db *d, struct pgl_ledger_verdict *v)
{
	const struct { const char *what; int64_t got; } sums[] = {
		{ "sum(abalance) moved", d->abalance_moved },
		{ "sum(tbalance) moved", d->tbalance_moved },
		{ "sum(bbalance) moved", d->bbalance_moved },
		{ "sum(pgbench_history.delta) moved", d->history_moved },
	};

	v->balances_agree = true;
	v->balance_detail[0] = 0;
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		if (sums[i].got == d->txn_delta_sum)
			continue;
		v->balances_agree = false;
		snprintf(v->balance_detail, sizeof(v->balance_detail),
			 "%s by %" PRId64 ", the ledger's deltas sum to %" PRId64, sums[i].what,
			 sums[i].got, d->txn_delta_sum);
		return;
	}
	if (d->history_rows_added != (int64_t)d->txn.n) {
		v->balances_agree = false;
		snprintf(v->balance_detail, sizeof(v->balance_detail),
			 "pgbench_history gained %" PRId64 " rows for %zu ledger transactions",
			 d->history_rows_added, d->txn.n);
	} else if (d->accounts_off) {
		v->balances_agree = false;
		snprintf(v->balance_detail, sizeof(v->balance_detail),
			 "%" PRId64 " accounts moved by other than the ledger's deltas for them",
			 d->accounts_off);
	}
}

void pgl_ledger_check(struct pgl_ledger *l, struct pgl_ledger_db *d, struct pgl_ledger_verdict *ret)
{
	struct pgl_ledger_verdict v;
	size_t i = 0, k = 0;

	memset(&v, 0, sizeof(v));
	pgl_ids_sort(&l->begun);
	pgl_ids_sort(&l->acked);
	pgl_ids_sort(&d->txn);
	pgl_ids_sort(&d->item);
	v.acked = l->acked.n;
	for (size_t a = 0; a < l->begun.n; a++)
		if (!pgl_ids_has(&l->acked, l->begun.v[a]))
			v.in_flight++;
	for (size_t a = 0; a < l->acked.n; a++) {
		int64_t id = l->acked.v[a];

		if (!pgl_ids_has(&d->txn, id) && !pgl_ids_has(&d->item, id)) {
			v.lost++;
			note(v.lost_ids, v.lost, id);
		}
	}
	/* merge walk over the two tables: every id in either */
	while (i < d->txn.n || k < d->item.n) {
		int64_t id;
		bool both = false;

		if (k >= d->item.n || (i < d->txn.n && d->txn.v[i] < d->item.v[k])) {
			id = d->txn.v[i++];
		} else if (i >= d->txn.n || d->item.v[k] < d->txn.v[i]) {
			id = d->item.v[k++];
		} else {
			id = d->txn.v[i++];
			k++;
			both = true;
		}
		if (both)
			v.present++;
		else {
			v.half++;
			note(v.half_ids, v.half, id);
		}
		if (pgl_ids_has(&l->acked, id))
			continue;
		if (pgl_ids_has(&l->begun, id)) {
			if (both)
				v.in_flight_present++;
		} else {
			v.unexpected++;
		}
	}
	check_balances(d, &v);
	v.ok = !v.lost && !v.half && !v.unexpected && v.balances_agree;
	*ret = v;
}

static void print_ids(FILE *out, const char *what, const int64_t *ids, uint64_t n)
{
	if (!n)
		return;
	fprintf(out, "  %s:", what);
	for (uint64_t i = 0; i < n && i < PGL_LEDGER_EXAMPLES; i++)
		fprintf(out, " %" PRId64 " (client %" PRId64 " txn %" PRId64 ")", ids[i], (ids[i] >> 32) - 1,
			ids[i] & 0xffffffff);
	fprintf(out, "%s\n", n > PGL_LEDGER_EXAMPLES ? " ..." : "");
}

void pgl_ledger_verdict_print(const struct pgl_ledger_verdict *v, FILE *out)
{
	fprintf(out, "ledger: %" PRIu64 " acknowledged, %" PRIu64 " in flight (%" PRIu64 " of them committed)\n",
		v->acked, v->in_flight, v->in_flight_present);
	fprintf(out, "lost commits: %" PRIu64 "\nhalf-present transactions: %" PRIu64
		"\nunexpected transactions: %" PRIu64 "\nbalances: %s%s\n", v->lost, v->half, v->unexpected,
		v->balances_agree ? "agree" : "DISAGREE: ", v->balance_detail);
	print_ids(out, "lost ids", v->lost_ids, v->lost);
	print_ids(out, "half-present ids", v->half_ids, v->half);
	fprintf(out, "verdict: %s\n", v->ok ? "intact" : "DAMAGED");
}

static struct json_object *ids_json(const int64_t *ids, uint64_t n)
{
	struct json_object *a = json_object_new_array();

	for (uint64_t i = 0; a && i < n && i < PGL_LEDGER_EXAMPLES; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

struct json_object *pgl_ledger_verdict_json(const struct pgl_ledger_verdict *v)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "acked", json_object_new_int64((int64_t)v->acked));
	json_object_object_add(o, "in_flight", json_object_new_int64((int64_t)v->in_flight));
	json_object_object_add(o, "in_flight_present", json_object_new_int64((int64_t)v->in_flight_present));
	json_object_object_add(o, "present", json_object_new_int64((int64_t)v->present));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)v->lost));
	json_object_object_add(o, "half", json_object_new_int64((int64_t)v->half));
	json_object_object_add(o, "unexpected", json_object_new_int64((int64_t)v->unexpected));
	json_object_object_add(o, "balances_agree", json_object_new_boolean(v->balances_agree));
	json_object_object_add(o, "balance_detail", json_object_new_string(v->balance_detail));
	json_object_object_add(o, "lost_ids", ids_json(v->lost_ids, v->lost));
	json_object_object_add(o, "half_ids", ids_json(v->half_ids, v->half));
	json_object_object_add(o, "ok", json_object_new_boolean(v->ok));
	return o;
}
