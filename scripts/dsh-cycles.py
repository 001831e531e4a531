#!/usr/bin/env python3
"""Import cycles among one program's files, from the object files (D-LAYOUT).

A file A uses a file B when A's object has an undefined symbol (nm: U)
that B's object defines (T, D, B, R...).  A cycle is a strongly connected
set of two or more files.  The command table (cmdtab.o) names every
handler: its edges out are the table, not an import, and are left out.

usage: dsh-cycles.py OBJDIR          (its *.o, e.g. build/obj/dsh/run)
       dsh-cycles.py FILE.o...        (e.g. $(make -s print-objs PROG=dsh))
A file is named by its path below obj/ (build/obj/dsh/main.o: dsh/main.c),
or below OBJDIR.  Prints the call graph's cycles, each with the symbols
that close it, and exits 1 if there is one; exits 2 if there are no object
files or a listed one does not exist (build first).
"""
import os
import subprocess
import sys

TABLE = {"cmdtab"}


def symbols(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1].isupper()}
    out = subprocess.run(["nm", "--undefined-only", path], capture_output=True, text=True, check=True).stdout
    used = {l.split()[-1] for l in out.splitlines() if l.split()}
    return defined, used


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, res = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            res.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return res


def name_of(path):
    """build/obj/dsh/main.o -> dsh/main"""
    p = path.replace(os.sep, "/")
    return (p.split("/obj/", 1)[1] if "/obj/" in p else p.split("obj/", 1)[1] if p.startswith("obj/") else p)[:-2]


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if len(sys.argv) == 2 and os.path.isdir(sys.argv[1]):
        d = sys.argv[1]
        files = {f[:-2]: os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".o")}
        where = d
    else:
        missing = [f for f in sys.argv[1:] if not os.path.isfile(f)]
        if missing:
            print(f"dsh-cycles: no such object file: {' '.join(missing)} (build first)", file=sys.stderr)
            return 2
        files = {name_of(f): f for f in sys.argv[1:]}
        where = " ".join(sorted({os.path.dirname(n) + "/" for n in files}))
    if not files:
        print(f"dsh-cycles: no object files in {sys.argv[1]}", file=sys.stderr)
        return 2
    objs = files
    defs, uses = {}, {}
    for name, path in files.items():
        defs[name], uses[name] = symbols(path)
    owner = {}
    for name, ds in defs.items():
        for s in ds:
            owner[s] = name
    edges, why = {}, {}
    for a, us in uses.items():
        if os.path.basename(a) in TABLE:
            continue
        for s in us:
            b = owner.get(s)
            if b and b != a:
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), []).append(s)
    cycles = [c for c in sccs(defs.keys(), edges) if len(c) > 1]
    for c in cycles:
        print("cycle: " + " ".join(f + ".c" for f in c))
        for a in c:
            for b in c:
                if (a, b) in why:
                    print(f"  {a}.c -> {b}.c: {', '.join(sorted(why[(a, b)]))}")
    if not cycles:
        print(f"no cycle among {len(objs)} files of {where} (the command table aside)")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
