#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The server is killed (stop --immediate) in the middle of a run: pgload
# reports partial results and exits 2; after restart every transaction
# pgload counted as committed is in pgbench_history (at most one in-flight
# commit per client may be there without having been acknowledged).
. "$(dirname "$0")/it_lib.sh"

D=$T/data
"$PGLOAD" cluster init --pgdata "$D" >/dev/null || fail "cluster init"
"$PGLOAD" init --pgdata "$D" -s 1 -q || fail "pgload init"
"$PGLOAD" run --pgdata "$D" -c 4 -j 2 -T 60 -M prepared --json "$T/run.json" >"$T/run.out" 2>&1 &
RUN=$!
BG_PIDS=$RUN
sleep 4
"$PGLOAD" cluster stop --immediate --pgdata "$D" || fail "stop --immediate"
i=0
while kill -0 "$RUN" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
kill -0 "$RUN" 2>/dev/null && fail "pgload still running 20 s after the server died"
wait "$RUN"; rc=$?
BG_PIDS=""
cat "$T/run.out"
[ $rc = 2 ] || fail "pgload exited $rc after the server died, want 2 (clients aborted)"
grep -q "clients aborted: 4 of 4" "$T/run.out" || fail "summary does not say the clients aborted"
grep -q '"aborted_clients": *4' "$T/run.json" || fail "JSON result lacks aborted_clients"
n=$(processed "$T/run.out")
[ "$n" -gt 0 ] || fail "no transaction committed before the crash"
ok "crash: exit 2 with partial results ($n committed)"

"$PGLOAD" cluster start --pgdata "$D" >/dev/null || fail "restart after the crash"
h=$(q "$D" "SELECT count(*) FROM pgbench_history")
[ "$h" -ge "$n" ] || fail "lost commits: pgload counted $n, history has $h"
[ "$h" -le $((n + 4)) ] || fail "history has $h rows, more than $n committed + 4 in flight"
check_balances "$D"
ok "nothing committed was lost ($n counted, $h in history)"
