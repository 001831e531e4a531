#!/usr/bin/env python3
"""Source files of one name in different folders (issue 33 item 6; D-LAYOUT).

Reads paths (one a line) on stdin, the tracked .c and .h files, and prints
every basename that two or more of them share, with the paths; exits 1 if
there is one.  A reader (and a debugger's or a linker's message that names
only the file) must know which file "device.c" is.

The one exception: main.c, each program's entry point (dsh/main.c,
dsh/run/main.c), where the folder names the program -- a main.c must
define main(), so the name says "the entry point" and nothing else.
"""
import os
import re
import sys


def main():
    paths = [l.strip() for l in sys.stdin if l.strip().endswith((".c", ".h"))]
    by = {}
    for p in paths:
        by.setdefault(os.path.basename(p), []).append(p)
    bad = 0
    for name, ps in sorted(by.items()):
        if name == "main.c":
            for p in ps:
                try:
                    src = open(p, errors="ignore").read()
                except OSError:
                    src = ""
                if not re.search(r"^int\s+main\s*\(", src, re.M):
                    print(f"{p}: a main.c that defines no main(): give it a name of its own")
                    bad = 1
            continue
        if len(ps) > 1:
            print(f"{name}: {' '.join(sorted(ps))}")
            bad = 1
    if not bad:
        print(f"no two of {len(paths)} source files share a name (main.c: entry points)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
