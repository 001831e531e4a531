#!/usr/bin/env python3
"""Import cycles among dsh/*.c, from the object files.

A file A uses a file B when A's object has an undefined symbol (nm: U)
that B's object defines (T, D, B, R...).  A cycle is a strongly connected
set of two or more files.  The command table (cmdtab.o) names every
handler: its edges out are the table, not an import, and are left out.

usage: dsh-cycles.py OBJDIR      (e.g. build/obj/dsh)
Prints the call graph's cycles, each with the symbols that close it, and
exits 1 if there is one; exits 2 if OBJDIR has no object files.
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


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = sys.argv[1]
    objs = sorted(f for f in os.listdir(d) if f.endswith(".o")) if os.path.isdir(d) else []
    if not objs:
        print(f"dsh-cycles: no object files in {d}", file=sys.stderr)
        return 2
    defs, uses = {}, {}
    for f in objs:
        name = f[:-2]
        defs[name], uses[name] = symbols(os.path.join(d, f))
    owner = {}
    for name, ds in defs.items():
        for s in ds:
            owner[s] = name
    edges, why = {}, {}
    for a, us in uses.items():
        if a in TABLE:
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
        print(f"no cycle among {len(objs)} files of {d} (the command table aside)")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
