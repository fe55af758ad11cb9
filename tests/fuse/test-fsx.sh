#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: the fsx exerciser on dutfs against a native directory.
#
#     test-fsx.sh FSX_BINARY device|syscall
#
# Mounts dutfs (tracing on, so the tracer is exercised too) over a fresh
# backing directory, runs fsx in MNT/fsxN against native directories, unmounts
# cleanly, then checks that the backing directory holds exactly what the
# native directory holds.  FSX_OPS (default 100000) and FSX_SEED (default:
# random, printed), FSX_JOBS (default 4) override the run, FSX_ARGS adds
# fsx options; a failure prints the replay command.
. "$(dirname "$0")/lib.sh"

FSX=${1:?usage: test-fsx.sh FSX device|syscall}
VIEW=${2:?usage: test-fsx.sh FSX device|syscall}
DUT_TEST_NAME="fsx-$VIEW"
OPS=${FSX_OPS:-100000}
SEED=${FSX_SEED:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))}

dut_need_root
dut_need_dutfs

dut_tmpdir
mkdir "$T/backing" "$T/mnt"
# The native reference: tmpfs when there is one (same semantics for these
# ops, and it keeps the disk free for the file system under test).
REF_PARENT=${FSX_REF_PARENT:-/dev/shm}
[ -d "$REF_PARENT" ] && [ -w "$REF_PARENT" ] || REF_PARENT=$T
REF=$(mktemp -d "$REF_PARENT/dutlab-fsx-ref.XXXXXX") || die "cannot create the reference directory"
dut_defer "rm -rf '$REF'"
dut_mount "$T/backing" "$T/mnt" --view "$VIEW" --trace "$T/trace.dtr"
# The ops are latency-bound (each waits for FUSE and the disk), so JOBS
# instances with consecutive seeds run side by side on their own files and
# directories, OPS ops in total: more concurrency for dutfs, less wall time.
JOBS=${FSX_JOBS:-4}
per_job=$(( (OPS + JOBS - 1) / JOBS ))
say "dutfs $VIEW view; $JOBS fsx jobs x $per_job ops, seeds $SEED..$((SEED + JOBS - 1))"
pids=()
for ((j = 0; j < JOBS; j++)); do
	mkdir -p "$T/mnt/fsx$j" "$REF/fsx$j" || die "mkdir on the mount failed"
	timeout 170 "$FSX" --seed $((SEED + j)) --ops "$per_job" --view "$VIEW" ${FSX_ARGS:-} \
		"$T/mnt/fsx$j" "$REF/fsx$j" >"$T/fsx$j.log" 2>&1 &
	pids+=($!)
done
bad=0
for ((j = 0; j < JOBS; j++)); do
	wait "${pids[$j]}"
	rc=$?
	cat "$T/fsx$j.log"
	if [ $rc -eq 124 ]; then
		say "fsx job $j (seed $((SEED + j))) did not finish within 170 s"
		bad=1
	elif [ $rc -ne 0 ]; then
		say "fsx job $j (seed $((SEED + j))) failed with exit $rc; replay hint above"
		bad=1
	fi
done
[ $bad -eq 0 ] || die "fsx found a mismatch or error (seeds $SEED..$((SEED + JOBS - 1)))"

dut_umount "$T/mnt" || die "dutfs needed a forced unmount or SIGKILL to stop"
for ((j = 0; j < JOBS; j++)); do
	"$FSX" --compare "$T/backing/fsx$j" "$REF/fsx$j" || die "after unmount, backing/fsx$j differs from the native one"
done
say "PASS"
