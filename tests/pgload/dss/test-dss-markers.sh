#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgload dss finds the dutfs control file by itself, as the OLTP workload
# does: with the cluster's data directory on a dutfs mount and no
# --dutfs-control, the dss/<phase> markers land in the trace, whether the
# data directory comes from the server (SHOW data_directory) or --pgdata.
. "$(dirname "$0")/../it_lib.sh"

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

"$PGLOAD" cluster init --pgdata "$M/data" --set fsync=off >/dev/null || fail "cluster init on dutfs"
CI=$(conninfo "$M/data")

# 1: from the server's data_directory (the conninfo's user is a superuser)
"$PGLOAD" dss -d "$CI" -s 0.01 -j 1 --phases load --quiet --debug 2>"$T/dss1.err" ||
	{ cat "$T/dss1.err"; fail "pgload dss (load)"; }
grep -q "phase markers go to $M/.dutfs/control" "$T/dss1.err" ||
	{ cat "$T/dss1.err"; fail "control file not found from SHOW data_directory"; }
ok "control file found from the server's data directory"

# 2: from --pgdata, as a user that may not read data_directory
psql -X -q -v ON_ERROR_STOP=1 "$CI" -c "CREATE ROLE dss_plain LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO dss_plain; GRANT CREATE ON SCHEMA public TO dss_plain" ||
	fail "creating a plain role"
# pgload's pg_ident.conf lets OS user root be role postgres only: let it be dss_plain too.
echo "pgload root dss_plain" >>"$M/data/pg_ident.conf"
psql -X -q -v ON_ERROR_STOP=1 "$CI" -c "SELECT pg_reload_conf()" >/dev/null || fail "reload"
"$PGLOAD" dss -d "$CI user=dss_plain" -s 0.01 --phases analyze --quiet --debug 2>"$T/dss2.err" ||
	{ cat "$T/dss2.err"; fail "pgload dss (analyze as a plain role)"; }
grep -q "phase markers are off" "$T/dss2.err" ||
	{ cat "$T/dss2.err"; fail "a plain role without --pgdata should find no control file"; }
"$PGLOAD" dss -d "$CI user=dss_plain" --pgdata "$M/data" -s 0.01 --phases analyze --quiet --debug 2>"$T/dss3.err" ||
	{ cat "$T/dss3.err"; fail "pgload dss --pgdata (analyze)"; }
grep -q "phase markers go to $M/.dutfs/control" "$T/dss3.err" ||
	{ cat "$T/dss3.err"; fail "control file not found from --pgdata"; }
ok "control file found from --pgdata"

"$PGLOAD" cluster destroy --pgdata "$M/data" || fail "destroy"
unmount
kill -0 "$DUTFS_PID" 2>/dev/null && fail "dutfs did not exit after umount"

"$DUTLAB" report "$T/trace.dtr" >"$T/report.txt" 2>&1 || { cat "$T/report.txt"; fail "dutlab report"; }
for label in "dss/load start" "dss/load end" "dss/analyze start" "dss/analyze end"; do
	grep -q "^  $label  " "$T/report.txt" || { cat "$T/report.txt"; fail "marker \"$label\" is not in the trace"; }
done
ok "dss phase markers in the trace"
