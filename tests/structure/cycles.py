#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Call cycles between the product's .c files, and include cycles between
its headers (issue #21).

A .c file A depends on B when A's object refers to a global symbol that B's
object defines (nm of every object meson built, mapped back to its source by
compile_commands.json).  A cycle is a strongly connected set of two or more
files.  Tests, fuzzers and benchmarks are not product code and are left out.

Every cycle the tree has today is listed in cycles.allow beside this file, one
per line (its files, space-separated).  A cycle that is not inside a listed one
fails the test, naming its files and one reference per edge, so a new cycle is
fixed or argued for in review, not added by accident.  A listed cycle that
shrank or went away is reported so the list can be made smaller.

Include cycles: a product file (a header, or a .c file another includes)
that includes itself, directly or through other headers, is a cycle.  The
edges are the #include "..." lines of every product file under the source
root (inside #if or not), each name resolved from the source root (the
product names its headers so, "lib/x.h"), then from the build root
(generated headers such as tools/kinds/step_kinds.h), then beside the
including file.  cycles.allow
does not apply: none is known, and include guards only hide a cycle until a
declaration is needed before its header's guard is set.

usage: cycles.py BUILD_DIR SOURCE_DIR [ALLOW_FILE]
exit: 0 no new cycle, 1 a new cycle, 2 usage or tool error
"""
import json
import os
import re
import subprocess
import sys

SKIP_PREFIXES = ("tests/", "subprojects/")
SKIP_FILES = ("tools/bench/bench-trace.c", "tools/bench/bench-report.c", "tools/trace/trace_gen.c")
PRODUCT_DIRS = ("lib", "fuse", "probe", "pgload", "tools", "udev")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def sources(build, srcroot):
    """{object path: source path relative to the source root} of product code."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        cmds = json.load(f)
    out = {}
    for c in cmds:
        src = os.path.normpath(os.path.join(c["directory"], c["file"]))
        rel = os.path.relpath(src, srcroot)
        if rel.startswith("..") or rel.startswith(SKIP_PREFIXES) or rel in SKIP_FILES:
            continue
        if "output" not in c:
            continue
        obj = os.path.normpath(os.path.join(c["directory"], c["output"]))
        if os.path.exists(obj):
            out[obj] = rel
    return out


def symbols(objs):
    """{object: (defined globals, undefined)} from one nm -P -A over all objects."""
    out = {o: (set(), set()) for o in objs}
    names = sorted(objs)
    for i in range(0, len(names), 200):
        chunk = names[i:i + 200]
        r = subprocess.run(["nm", "-P", "-A"] + chunk, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"nm: {r.stderr.strip()}")
        for line in r.stdout.splitlines():
            obj, sep, rest = line.partition(": ")
            parts = rest.split()
            if not sep or obj not in out or len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            if kind == "U":
                out[obj][1].add(name)
            elif kind in "TDBRCGSVW":
                out[obj][0].add(name)
    return out


def graph(objs):
    defs_by_sym = {}
    undefs_of = {}
    for obj, (d, u) in symbols(objs).items():
        src = objs[obj]
        for s in d:
            defs_by_sym.setdefault(s, set()).add(src)
        undefs_of.setdefault(src, set()).update(u)
    edges = {}
    for src, us in undefs_of.items():
        e = edges.setdefault(src, {})
        for s in sorted(us):
            for dst in defs_by_sym.get(s, ()):
                if dst != src and s != "main":
                    e.setdefault(dst, s)
    return edges


def sccs(edges):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, {})))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def include_graph(srcroot, build):
    """{file: {included file: line number}} over the product's .c and .h files,
    paths relative to the source root (generated headers: relative to the build root)."""
    files = []
    for top in PRODUCT_DIRS:
        for d, dirs, names in os.walk(os.path.join(srcroot, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    edges, pending, seen = {}, list(files), set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        rel = os.path.relpath(path, build if path.startswith(build + os.sep) else srcroot)
        e = edges.setdefault(rel, {})
        with open(path, errors="replace") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            for base in (srcroot, build, os.path.dirname(path)):
                cand = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(cand):
                    crel = os.path.relpath(cand, build if cand.startswith(build + os.sep) else srcroot)
                    e.setdefault(crel, text.count("\n", 0, m.start()) + 1)
                    pending.append(cand)
                    break
    return edges


def include_cycles(srcroot, build):
    """(cycles, edges): the strongly connected sets of files, and files that include themselves."""
    edges = include_graph(srcroot, build)
    found = sccs(edges)
    found += [[f] for f, e in sorted(edges.items()) if f in e]
    return found, edges


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    build, srcroot = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    allow_file = argv[3] if len(argv) == 4 else os.path.join(os.path.dirname(__file__), "cycles.allow")
    allowed = []
    with open(allow_file) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                allowed.append(set(line))
    try:
        objs = sources(build, srcroot)
        if not objs:
            print(f"cycles: no product objects under {build}: build first", file=sys.stderr)
            return 2
        edges = graph(objs)
        inc_found, inc_edges = include_cycles(srcroot, build)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"cycles: {e}", file=sys.stderr)
        return 2
    found = sccs(edges)
    new = [c for c in found if not any(set(c) <= a for a in allowed)]
    for a in allowed:
        now = [c for c in found if set(c) <= a]
        members = set().union(*now) if now else set()
        if members != a:
            gone = sorted(a - members)
            print(f"cycles: a listed cycle shrank or is gone (no longer in one: {' '.join(gone)}); "
                  f"update {os.path.basename(allow_file)}")
    print(f"cycles: {len(objs)} product objects, {len(found)} cycles, {len(new)} new")
    for c in new:
        print("new call cycle between: " + " ".join(c))
        for a in c:
            for b, sym in sorted(edges.get(a, {}).items()):
                if b in c:
                    print(f"  {a} -> {b} (uses {sym})")
    print(f"cycles: {len(inc_edges)} product files read for #include, {len(inc_found)} include cycles")
    for c in inc_found:
        print("include cycle between: " + " ".join(c))
        for a in c:
            for b, line in sorted(inc_edges.get(a, {}).items()):
                if b in c:
                    print(f"  {a}:{line} includes {b}")
    if inc_found:
        print("Break the include cycle: move what both headers need into a third, or declare the "
              "struct (struct x;) instead of including its header.")
    if new:
        print("Break the cycle (move the shared part into its own file, or pass a callback), or, if it "
              f"must stay, add its files as one line to {allow_file} and say why in the commit.")
    return 1 if new or inc_found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
