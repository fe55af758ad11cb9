#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# With the data directory on a dutfs mount, pgload writes its phase markers
# into the dutfs trace (found by walking up from PGDATA to .dutfs/control),
# and its relmap names the relations whose files the trace shows.
. "$(dirname "$0")/it_lib.sh"

DUTFS=${DUTFS:-${DUT_BUILD_ROOT:-build}/fuse/dutfs}
DUTLAB=${DUTLAB:-${DUT_BUILD_ROOT:-build}/tools/dutlab}
[ -x "$DUTFS" ] || skip "dutfs is not built ($DUTFS)"
[ -x "$DUTLAB" ] || skip "dutlab is not built ($DUTLAB)"
[ -c /dev/fuse ] || skip "no /dev/fuse"

B=$T/backing M=$T/mnt
mkdir "$B" "$M" && chmod 755 "$B" "$M"
"$DUTFS" "$B" "$M" --trace "$T/trace.dtr" --pidfile "$T/dutfs.pid" || skip "dutfs could not mount here"
DUTFS_PID=$(cat "$T/dutfs.pid")
unmount() {
	[ -f "$M/data/pgload_state.json" ] && "$PGLOAD" cluster stop --immediate --pgdata "$M/data" >/dev/null 2>&1
	umount "$M" 2>/dev/null
	i=0
	while kill -0 "$DUTFS_PID" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
}
trap 'unmount; cleanup' EXIT

"$PGLOAD" cluster init --pgdata "$M/data" >/dev/null || fail "cluster init on dutfs"
"$PGLOAD" init --pgdata "$M/data" -s 1 -q --debug 2>"$T/init.err" || { cat "$T/init.err"; fail "pgload init"; }
grep -q "phase markers go to $M/.dutfs/control" "$T/init.err" || { cat "$T/init.err"; fail "control file not found"; }
"$PGLOAD" run --pgdata "$M/data" -c 2 -t 50 -q --relmap "$T/relmap.json" || fail "pgload run"
"$PGLOAD" cluster destroy --pgdata "$M/data" || fail "destroy"
unmount
kill -0 "$DUTFS_PID" 2>/dev/null && fail "dutfs did not exit after umount"

# The report's "By phase" table lists every marker label of the trace.
"$DUTLAB" report "$T/trace.dtr" >"$T/report.txt" 2>&1 || { cat "$T/report.txt"; fail "dutlab report"; }
for label in "init/create start" "init/load start" "init/load end" "init/keys start" \
	"init/keys end" "init/vacuum end" "run start" "run end"; do
	grep -q "^  $label  " "$T/report.txt" || fail "marker \"$label\" is not in the trace"
done
ok "phase markers in the trace"
grep -q '"name": *"pgbench_accounts"' "$T/relmap.json" || fail "relmap lacks pgbench_accounts"
ok "relmap written"
