#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: the fsx exerciser on dutfs against a native directory.
#
#     test-fsx.sh FSX_BINARY device|syscall
#
# Mounts dutfs (tracing on, so the tracer is exercised too) over a fresh
# backing directory, runs fsx in MNT/fsx against a native directory, unmounts
# cleanly, then checks that the backing directory holds exactly what the
# native directory holds.  FSX_OPS (default 100000) and FSX_SEED (default:
# random, printed) override the run, FSX_ARGS adds fsx options; a failure prints the replay command.
. "$(dirname "$0")/lib.sh"

FSX=${1:?usage: test-fsx.sh FSX device|syscall}
VIEW=${2:?usage: test-fsx.sh FSX device|syscall}
DUT_TEST_NAME="fsx-$VIEW"
OPS=${FSX_OPS:-100000}
SEED=${FSX_SEED:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))}

dut_need_root
dut_need_dutfs

dut_tmpdir
mkdir "$T/backing" "$T/mnt" "$T/ref"
dut_mount "$T/backing" "$T/mnt" --view "$VIEW" --trace "$T/trace.dtr"
mkdir "$T/mnt/fsx" || die "mkdir on the mount failed"

say "dutfs $VIEW view; fsx --seed $SEED --ops $OPS"
timeout 170 "$FSX" --seed "$SEED" --ops "$OPS" --view "$VIEW" ${FSX_ARGS:-} "$T/mnt/fsx" "$T/ref"
rc=$?
if [ $rc -ne 0 ]; then
	[ $rc -eq 124 ] && die "fsx did not finish within 170 s (seed $SEED)"
	die "fsx found a mismatch or error (exit $rc, seed $SEED; replay hint above)"
fi

dut_umount "$T/mnt" || die "dutfs needed a forced unmount or SIGKILL to stop"
"$FSX" --compare "$T/backing/fsx" "$T/ref" || die "after unmount, the backing directory differs from the native one"
say "PASS"
