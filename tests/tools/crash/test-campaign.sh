#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dutlab crash end to end (root, FUSE, PostgreSQL 15):
#
#   test-campaign.sh campaign   CRASH_STATES (default 45: the 9 default points
#                               x 5 losses, every pair once) states with fsync
#                               honoured and three states per negative control
#                               (a torn page the redo re-initialises, a new
#                               page of an extended table, heals: one state
#                               alone missed damage once in CI):
#                               0 acknowledged commits lost, 0 half-present
#                               transactions, amcheck clean, every server
#                               started; both controls see damage
#   test-campaign.sh controls   only the negative controls, 2 states each:
#                               full_page_writes=off with 8 KiB pages torn at
#                               4 KiB must show damage (checksum/amcheck
#                               errors or no start), fsync=off lost commits or
#                               no start; and the campaign verdict must be PASS
#   test-campaign.sh fsync-eio  WAL fsync fails with EIO: PostgreSQL PANICs,
#                               restarts and recovers; the ledger is intact;
#                               then --class-loss data=fsync-eio,wal=lose-none:
#                               the EIO goes to the CHECKPOINT's data-file
#                               fsyncs, with the same outcome
#   test-campaign.sh init       crashes during pgload init -s 1 and its
#                               CHECKPOINT: every state starts, amcheck clean,
#                               the load check clean (docs/crash.md); then
#                               fsync=off with every unsynced write lost must
#                               be seen as damage in both of 2 states
#   test-campaign.sh bindir     --bindir is the PostgreSQL it runs, not the
#                               newest installed (a fake 99 that only fails)
#
# The test reads the result document (--json), so it checks each state, not
# only dutlab's exit code.  Whatever dutlab leaves (interrupted), the trap
# kills and unmounts.
set -u
MODE=${1:?usage: test-campaign.sh campaign|controls|fsync-eio|init|bindir}
build=${DUT_BUILD_ROOT:?DUT_BUILD_ROOT not set (run through meson test)}
DUTLAB=$build/tools/dutlab
say() { printf 'crash-%s: %s\n' "$MODE" "$*"; }
die() { say "FAIL: $*" >&2; exit 1; }
skip() { say "SKIP: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (mounts dutfs, runs PostgreSQL as user postgres)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x /usr/lib/postgresql/15/bin/pg_amcheck ] || skip "PostgreSQL 15 with pg_amcheck is not installed"
id postgres >/dev/null 2>&1 || skip "no user postgres"
command -v jq >/dev/null || skip "jq is not installed"
[ -x "$DUTLAB" ] && [ -x "$build/fuse/dutfs" ] && [ -x "$build/pgload/pgload" ] || skip "dutlab, dutfs or pgload not built"
[ -x "$build/tests/tools/crash/crash_shm_live" ] || skip "crash_shm_live not built"

T=$(mktemp -d /tmp/dutcrash.XXXXXX)
chmod 755 "$T"
W=$T/w
DL=""
LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$DL" ] && kill -TERM "$DL" 2>/dev/null && sleep 2
	# a server still running on the mount (dutlab interrupted): kill it, then unmount
	for p in $(pgrep -f -- "-D $W/mnt/pgdata" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	if grep -q " $W/mnt " /proc/mounts; then
		printf 'recover\n' >"$W/mnt/.dutfs/control" 2>/dev/null
		umount "$W/mnt" 2>/dev/null || umount -l "$W/mnt"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# PostgreSQL's shared memory: the /dev/shm/PostgreSQL.N segments, and the System V
# segments of user postgres nobody is attached to (a SIGKILLed server's, never removed)
pg_dsm() { ls /dev/shm 2>/dev/null | grep '^PostgreSQL\.[0-9]*$' | sort; }
pg_sysv_idle() { awk -v u="$(id -u postgres)" 'NR > 1 && $7 == 0 && $8 == u { print $2 }' /proc/sysvipc/shm | sort; }
# What a campaign's killed servers left behind: the segments that appeared during
# the run, that no live process maps, that no running server's dynamic shared
# memory control segment lists (crash_shm_live: the pinned area of a server someone
# else started on this machine during the run is not ours; the campaign's killed
# servers are gone, so nothing live lists theirs), and that are still there 10 s
# later (a server another test killed, whose harness removes its segments after
# the kill, is not ours either: ours are never removed once the campaign ended).
# Another crashed PostgreSQL on this machine whose segments nobody removes would
# still show here: the message names the segments with their size and time.
SHM_LIVE=$build/tests/tools/crash/crash_shm_live
shm_orphans() { # DSM-BEFORE SYSV-BEFORE: one "dsm NAME" or "shmid N" a line
	local n live
	live=$("$SHM_LIVE" 2>/dev/null | sort -u)
	for n in $(pg_dsm | comm -13 "$1" -); do
		grep -qx "$n" <<<"$live" || grep -qs "/dev/shm/$n" /proc/[0-9]*/maps || echo "dsm $n"
	done
	for n in $(pg_sysv_idle | comm -13 "$2" -); do echo "shmid $n"; done
}
shm_leaks() { # DSM-BEFORE SYSV-BEFORE
	local first kind n left=""
	first=$(shm_orphans "$1" "$2" | sort)
	[ -n "$first" ] || return 0
	sleep 10
	while read -r kind n; do
		case $kind in
		dsm) left="$left /dev/shm/$n ($(stat -c '%s bytes, %y' "/dev/shm/$n" 2>/dev/null | cut -c1-40))" ;;
		shmid) left="$left shmid $n" ;;
		esac
	done < <(shm_orphans "$1" "$2" | sort | comm -12 - <(echo "$first"))
	[ -z "$left" ] && say "segments that appeared during the run, unmapped, then gone or claimed 10 s later (another server's, not this campaign's):" $first >&2
	echo "$left"
}

run() { # dutlab crash options...: the document in $T/r.json, the output in $T/out
	pg_dsm >"$T/dsm.before"
	pg_sysv_idle >"$T/sysv.before"
	"$DUTLAB" crash --workdir "$W" --json "$T/r.json" "$@" >"$T/out" 2>&1 &
	DL=$!
	wait "$DL"
	RC=$?
	DL=""
	leaks=$(shm_leaks "$T/dsm.before" "$T/sysv.before")
	[ -z "$leaks" ] || { cat "$T/out"; die "the killed servers' shared memory was left behind:$leaks"; }
	[ -s "$T/r.json" ] || { cat "$T/out"; die "dutlab crash $* wrote no result document (exit $RC)"; }
	# a dutlab-result document: the states and the verdict are in the campaign phase's extra
	[ "$(jq -r '.schema + " " + .tool.name + " " + .config.workload' "$T/r.json")" = "dutlab-result dutlab crash" ] \
		|| die "not a dutlab-result document of dutlab crash: $(head -c 300 "$T/r.json")"
	jq '. as $d | ($d.phases[] | select(.name == "campaign") | .extra) + {config: $d.config}' \
		"$T/r.json" >"$T/flat.json" || die "no campaign phase in the result document"
}
j() { jq -r "$1" "$T/flat.json"; }

case $MODE in
campaign)
	N=${CRASH_STATES:-45}
	run --states "$N" --controls 3 --seed "${CRASH_SEED:-1}" --duration 3
	cat "$T/out"
	[ "$(j '.states | length')" = $((N + 6)) ] || die "$(j '.states | length') states in the document, want $((N + 6))"
	bad=$(j '[.states[] | select(.control == "regular") | select(.harness_error != null or .started != true
		or .commits_lost != 0 or .half_present != 0 or .unexpected != 0 or .balances_ok != true
		or .amcheck_exit != 0 or .amcheck_lines != 0)] | map("state \(.index): \(.summary)") | join("; ")')
	[ -z "$bad" ] || die "damage with fsync honoured: $bad"
	acked=$(j '[.states[] | select(.control == "regular") | .acked] | add')
	[ "$acked" -gt 0 ] || die "no acknowledged commit in $N states: the workload did not run"
	fired=$(j '[.states[] | select(.control == "regular" and .trigger == "fault")] | length')
	[ "$(j '.verdict.fpw_off_detected')" -ge 1 ] || die "the full_page_writes=off control saw no damage"
	[ "$(j '.verdict.fsync_off_detected')" -ge 1 ] || die "the fsync=off control saw no damage"
	[ "$(j '.verdict.pass')" = true ] && [ "$RC" = 0 ] || die "verdict $(j '.verdict.why'), exit $RC"
	say "PASS: $N states, $acked acknowledged commits, none lost; $fired crashes by fault; $(j '.states_per_minute | floor') states/min"
	;;
controls)
	run --states 0 --controls 2 --seed "${CRASH_SEED:-1}" --duration 3
	cat "$T/out"
	[ "$(j '.verdict.fpw_off_states')" = 2 ] && [ "$(j '.verdict.fsync_off_states')" = 2 ] \
		|| die "want 2 states per control"
	[ "$(j '[.states[] | select(.harness_error != null)] | length')" = 0 ] || die "a control state could not be run"
	[ "$(j '.verdict.fpw_off_detected')" -ge 1 ] || die "full_page_writes=off with 4 KiB torn pages: no damage seen; the checks cannot see torn pages"
	[ "$(j '.verdict.fsync_off_detected')" -ge 1 ] || die "fsync=off: no damage seen; the checks cannot see lost commits"
	[ "$(j '.verdict.pass')" = true ] && [ "$RC" = 0 ] || die "verdict $(j '.verdict.why'), exit $RC"
	say "PASS: full_page_writes=off: $(j '.verdict.fpw_off_detected')/2 damaged, fsync=off: $(j '.verdict.fsync_off_detected')/2 damaged"
	j '.states[] | "  state \(.index) \(.control): \(.summary)"'
	;;
fsync-eio)
	# the device's atomicity from dutprobe identify: a loop device with 4 KiB
	# logical blocks (nothing larger reported: one block is atomic)
	truncate -s 64M "$T/dev.img"
	LOOP=$(losetup -f --show -b 4096 "$T/dev.img") || skip "no loop device"
	"$build/probe/dutprobe" identify --json "$T/id.json" "$LOOP" >/dev/null \
		|| die "dutprobe identify $LOOP failed"
	run --states 3 --controls 0 --points time --losses fsync-eio --seed "${CRASH_SEED:-3}" --duration 4 \
		--identify "$T/id.json"
	cat "$T/out"
	[ "$(j .config.sector)" = 4096 ] || die "--identify of a 4 KiB-block device: sector $(j .config.sector), expected 4096"
	[ "$(j .config.atomic_write.source)" = logical-block ] || die "atomicity source: $(j .config.atomic_write.source)"
	j .config.atomicity | grep -q "8 KiB pages on a 4 KiB-atomic device.*keep full_page_writes on" \
		|| die "the result does not say 8 KiB pages can tear: $(j .config.atomicity)"
	bad=$(j '[.states[] | select(.damaged or .harness_error != null)] | map("state \(.index): \(.summary)") | join("; ")')
	[ -z "$bad" ] || die "after fsync EIO: $bad"
	[ "$(j '[.states[] | select(.panic_before_restart)] | length')" -ge 1 ] \
		|| die "no state saw PostgreSQL PANIC on the failed WAL fsync (the EIO did not reach it)"
	wal_panics=$(j '[.states[] | select(.panic_before_restart)] | length')
	# the EIO on the data files' fsyncs (the CHECKPOINT's), WAL losing nothing
	# unsynced: the checkpointer PANICs, and the redo from the previous
	# checkpoint must rebuild what the failed fsync dropped
	run --states 3 --controls 0 --points time --losses lose-none --class-loss data=fsync-eio,wal=lose-none \
		--seed "${CRASH_SEED:-3}" --duration 4
	cat "$T/out"
	[ "$(j .config.class_loss)" = "data=fsync-eio,wal=lose-none" ] || die "config.class_loss: $(j .config.class_loss)"
	[ "$(j '[.states[] | select(.class_losses.heap == "fsync-eio" and .class_losses.wal == "lose-none"
		and .class_losses.slru == "lose-none")] | length')" = 3 ] || die "the states' class_losses: $(j '[.states[].class_losses] | tostring')"
	bad=$(j '[.states[] | select(.damaged or .harness_error != null)] | map("state \(.index): \(.summary)") | join("; ")')
	[ -z "$bad" ] || die "after fsync EIO on the data files: $bad"
	data_panics=$(j '[.states[] | select(.panic_before_restart)] | length')
	[ "$data_panics" -ge 1 ] || die "no state saw PostgreSQL PANIC on a failed data-file fsync (the EIO did not reach it)"
	say "PASS: $wal_panics of 3 states PANICked on a WAL fsync EIO, $data_panics of 3 on a data-file fsync EIO; all recovered intact"
	;;
init)
	# crash points during pgload init -s 1 (COPY, vacuum, keys, CHECKPOINT) into an empty cluster
	N=${CRASH_STATES:-5}
	run --states "$N" --controls 0 --points init --seed "${CRASH_SEED:-1}"
	cat "$T/out"
	[ "$(j '.states | length')" = "$N" ] || die "$(j '.states | length') states in the document, want $N"
	[ "$(j '[.states[] | select(.point == "init")] | length')" = "$N" ] || die "a state is not at the init point"
	bad=$(j '[.states[] | select(.harness_error != null or .started != true or .load_findings != 0
		or .amcheck_exit != 0 or .amcheck_lines != 0)] | map("state \(.index): \(.summary)") | join("; ")')
	[ -z "$bad" ] || die "a crash during the load, fsync honoured: $bad"
	[ "$(j '[.states[] | select(.trigger == "fault")] | length')" -ge 1 ] || die "no crash came from the Nth-write fault"
	# the crashes fell in the load and after it (the last acknowledged statement says where)
	before=$(j '[.states[] | select(.load_acked < 6)] | length')
	after=$(j '[.states[] | select(.load_acked >= 6)] | length')
	[ "$before" -ge 1 ] && [ "$after" -ge 1 ] || die "crashes before the load's COMMIT: $before, after it: $after (want both)"
	# the check can see a lost load: fsync=off and every unsynced write lost
	# takes the acknowledged tables and rows away
	run --states 2 --controls 0 --points init --losses lose-all --set fsync=off --seed "${CRASH_SEED:-1}"
	cat "$T/out"
	[ "$(j '[.states[] | select(.harness_error != null)] | length')" = 0 ] || die "a fsync=off load state could not be run"
	seen=$(j '[.states[] | select(.damaged)] | length')
	[ "$seen" = 2 ] || die "fsync=off during the load: $seen of 2 states damaged; the load check cannot see a lost load"
	[ "$RC" = 1 ] || die "fsync=off during the load: dutlab crash exited $RC, want 1 (damage)"
	say "PASS: $N load states clean ($before crashed before the load's COMMIT, $after after); fsync=off: 2/2 damaged"
	j '.states[] | "  state \(.index): \(.summary)"'
	;;
bindir)
	# --bindir is the server the campaign runs (a dutlab run step passes its
	# configuration's): a newer "PostgreSQL 99" whose programs only fail is
	# the newest under DUT_PG_ROOT, and must not be used
	mkdir -p "$T/pgroot/99/bin"
	for p in initdb pg_ctl postgres pg_amcheck psql; do
		printf '#!/bin/sh\necho "fake PostgreSQL 99: the newest installed was used" >&2\nexit 1\n' >"$T/pgroot/99/bin/$p"
		chmod 755 "$T/pgroot/99/bin/$p"
	done
	ln -s /usr/lib/postgresql/15 "$T/pgroot/15"
	export DUT_PG_ROOT=$T/pgroot
	run --states 1 --controls 0 --points time --losses lose-all --bindir /usr/lib/postgresql/15/bin --duration 2
	cat "$T/out"
	[ "$RC" = 0 ] || die "dutlab crash --bindir /usr/lib/postgresql/15/bin exited $RC"
	[ "$(j .config.pg_bindir)" = /usr/lib/postgresql/15/bin ] || die "the document says it ran $(j .config.pg_bindir)"
	! grep -q "fake PostgreSQL 99" "$T/out" || die "the newest installed PostgreSQL ran, not --bindir"
	say "PASS: the campaign ran $(j .config.pg_bindir), not the newest installed (a fake 99)"
	;;
*) die "unknown mode $MODE" ;;
esac
