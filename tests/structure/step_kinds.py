#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A step kind is one file and one row (issue #21): tools/kinds/NAME.c and
NAME in the list dutlab_kinds of tools/kinds/meson.build.

Fails when a kind file has no row (it would silently not be built), when a
row has no file, or when a listed kind was not built as both of its halves:
an object compiled with -DDUTLAB_KIND_RUN that defines dut_step_kind_NAME,
and one compiled with -DDUTLAB_KIND_REPORT that defines rundir_kind_NAME
(read from compile_commands.json and nm of the objects meson built).

usage: step_kinds.py BUILD_DIR SOURCE_DIR KIND...
exit: 0 every kind is one file and one row, 1 not, 2 usage or tool error
"""
import glob
import json
import os
import subprocess
import sys

HALVES = (("-DDUTLAB_KIND_RUN", "dut_step_kind_"), ("-DDUTLAB_KIND_REPORT", "rundir_kind_"))


def defined(obj):
    r = subprocess.run(["nm", "-P", obj], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nm {obj}: {r.stderr.strip()}")
    return {p[0] for p in (line.split() for line in r.stdout.splitlines())
            if len(p) >= 2 and p[1] in "TDRBGS"}


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    build, srcroot, rows = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3:]
    kdir = os.path.join(srcroot, "tools", "kinds")
    files = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(kdir, "*.c")))
    bad = []
    for f in files:
        if f not in rows:
            bad.append(f"tools/kinds/{f}.c has no row in dutlab_kinds (tools/kinds/meson.build): "
                       "add one, or the kind is never built")
    for k in sorted({k for k in rows if rows.count(k) > 1}):
        bad.append(f"{k} is in dutlab_kinds more than once")
    for k in rows:
        if k not in files:
            bad.append(f"{k} is in dutlab_kinds but tools/kinds/{k}.c does not exist")
    try:
        with open(os.path.join(build, "compile_commands.json")) as fh:
            cmds = json.load(fh)
        built = {}
        for c in cmds:
            src = os.path.normpath(os.path.join(c["directory"], c["file"]))
            if os.path.dirname(src) != kdir or "output" not in c:
                continue
            obj = os.path.join(c["directory"], c["output"])
            for flag, _ in HALVES:
                if flag in c.get("command", "") or flag in c.get("arguments", []):
                    built.setdefault((os.path.basename(src)[:-2], flag), []).append(obj)
        for k in rows:
            for flag, prefix in HALVES:
                objs = built.get((k, flag), [])
                if len(objs) != 1:
                    bad.append(f"tools/kinds/{k}.c: compiled {len(objs)} times with {flag}, expected once")
                elif not os.path.exists(objs[0]):
                    bad.append(f"tools/kinds/{k}.c: {objs[0]} is missing: build first")
                elif prefix + k not in defined(objs[0]):
                    bad.append(f"tools/kinds/{k}.c: with {flag} it defines no {prefix}{k}")
    except (OSError, RuntimeError, ValueError) as e:
        print(f"step_kinds: {e}", file=sys.stderr)
        return 2
    print(f"step_kinds: {len(rows)} rows, {len(files)} files in tools/kinds, {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
