#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# [experiment] order: two configurations (synchronous_commit on and off) x 2
# repetitions of a 3 s OLTP run on a directory target, without an order key
# (interleaved, the default with repetitions):
#   dry_run   the dry run says the order
#   started   manifest.json's step start times go c0 rep 1, c1 rep 1, c0 rep 2,
#             c1 rep 2
#   report    report.md compares the TPS of the two configurations and does
#             not say they "ran one after another"
# IT_ORDER=sequential (or interleaved) writes that order into the file: with
# sequential each check above must FAIL (that is how to see they can).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/it-lib.sh"

bad=0
check_fail() { echo "FAIL: $*"; bad=1; }

mkdir -p "$WORK/data"
{
	echo "[experiment]"
	echo "name = order"
	echo "repetitions = 2"
	[ -n "${IT_ORDER:-}" ] && echo "order = $IT_ORDER"
	cat <<INI
[target work]
type = directory
path = $WORK/data
[postgres]
set = shared_buffers=16MB
[matrix]
set.synchronous_commit = on, off
[step load]
type = oltp-init
scale = 1
[step rw]
type = oltp-run
clients = 2
duration = 3s
INI
} >"$WORK/order.ini"

# ---- dry_run ----
dry=$("$DUTLAB" run "$WORK/order.ini" --dry-run 2>&1)
grep -F "order:" <<<"$dry"
grep -qF "order: interleaved (rep 1 of each configuration, then rep 2 of each ..." <<<"$dry" ||
	check_fail "dry_run: the dry run does not say the order is interleaved: $(grep -F order: <<<"$dry")"

it_run_small "$WORK/order.ini"
m=$RUN/manifest.json

# ---- started ----
# every step start as "TIME CONFIG REP", in time order (steps of one block
# start seconds after the previous block's: a setup and a 3 s run apart);
# collapsed to the sequence of blocks
blocks=$(jq -r '.configs[] as $c | $c.reps[] as $r | $r.steps[] | select(.started_at != null) |
	"\(.started_at) c\($c.index) rep\($r.rep)"' "$m" | sort -s -k1,1 | awk '{ b = $2 " " $3 } b != last { print b; last = b }' |
	paste -sd, -)
echo "blocks in start order: $blocks"
[ "$(jq '[.configs[].reps[].steps[] | select(.started_at != null)] | length' "$m")" -eq 8 ] ||
	check_fail "started: expected 8 step starts (2 configurations x 2 repetitions x 2 steps) in $m"
[ "$blocks" = "c0 rep1,c1 rep1,c0 rep2,c1 rep2" ] ||
	check_fail "started: the blocks ran as $blocks, expected c0 rep1,c1 rep1,c0 rep2,c1 rep2"

# ---- report ----
it_check_report load rw
tps=$(grep -F "the TPS of" "$REPORT" | head -3)
echo "TPS finding: $tps"
[ -n "$tps" ] || check_fail "report: report.md has no TPS comparison of the two configurations"
! grep -qF "ran one after another" "$REPORT" ||
	check_fail "report: report.md says: $(grep -F "ran one after another" "$REPORT" | head -1)"
grep -qE "the difference (exceeds|does not exceed) the run-to-run spread|is not shown: it does not exceed" <<<"$tps" ||
	check_fail "report: the TPS comparison gives no verdict on the run-to-run spread: $tps"

it_leftovers "$RUN" || check_fail "the run left things behind"
[ "$bad" -eq 0 ] || exit 1
echo "PASS: 2 configurations x 2 repetitions ran interleaved in $TOOK s; the report compares them"
