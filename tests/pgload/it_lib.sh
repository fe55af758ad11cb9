# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the pgload integration tests (sourced).  Needs root, PostgreSQL 15
# and user postgres; otherwise exit 77 with the reason.  Every cluster made
# under $T is destroyed on exit, whatever happens.
set -u
PGLOAD=${PGLOAD:?PGLOAD must name build/pgload/pgload}
BINDIR=${PGLOAD_BINDIR:-/usr/lib/postgresql/15/bin}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (initdb and the server run as postgres via runuser)"
[ -x "$BINDIR/initdb" ] || skip "PostgreSQL 15 is not installed ($BINDIR/initdb missing)"
getent passwd postgres >/dev/null || skip "there is no user postgres"
command -v psql >/dev/null || skip "psql is not installed"

T=$(mktemp -d /tmp/pgload-it.XXXXXX) || exit 99
chmod 755 "$T"
BG_PIDS=""
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for d in "$T"/*/; do
		[ -f "$d/pgload_state.json" ] && "$PGLOAD" cluster destroy --pgdata "$d" >/dev/null 2>&1
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# conninfo of the cluster in $1
conninfo() { "$PGLOAD" cluster status --pgdata "$1" | sed -n 's/^conninfo: //p'; }
# q PGDATA SQL: one value
q() { psql -X -At -v ON_ERROR_STOP=1 "$(conninfo "$1")" -c "$2"; }
# the number from "number of transactions actually processed: N" in file $1
processed() { sed -n 's/^number of transactions actually processed: //p' "$1"; }

# Balances after tpcb-like work: every delta lands once in each table;
# simple-update (-N) deltas, passed as $2, skip branches and tellers.
check_balances() {
	skipped=${2:-0}
	sum_a=$(q "$1" "SELECT coalesce(sum(abalance),0) FROM pgbench_accounts")
	sum_b=$(q "$1" "SELECT coalesce(sum(bbalance),0) FROM pgbench_branches")
	sum_t=$(q "$1" "SELECT coalesce(sum(tbalance),0) FROM pgbench_tellers")
	sum_h=$(q "$1" "SELECT coalesce(sum(delta),0) FROM pgbench_history")
	[ "$sum_a" = "$sum_h" ] && [ $((sum_b + skipped)) = "$sum_h" ] && [ $((sum_t + skipped)) = "$sum_h" ] ||
		fail "balances disagree: accounts $sum_a branches $sum_b tellers $sum_t history $sum_h (simple-update $skipped)"
	ok "balances agree (sum of deltas $sum_h)"
}
