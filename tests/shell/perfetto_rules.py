#!/usr/bin/env python3
"""Check a Chrome trace-event JSON file as Perfetto's JSON importer reads it.

The rules are those of Perfetto's trace processor (the engine of the
Perfetto UI), src/trace_processor/importers/json/json_trace_tokenizer.cc and
json_trace_parser.cc, google/perfetto at ec5d16b (2026-08):
  * the file is an array of events or an object whose "traceEvents" is one;
  * every event has a string "ph"; pid and tid are integers below 2^32;
  * ts and dur are microseconds, read as llround(value * 1000) ns;
  * an "X" event without "dur" is a parser failure;
  * "M" events named thread_name / process_name need a non-empty args.name,
    thread_sort_index / process_sort_index an integer args.sort_index;
  * "X" events on one thread must nest: one that partly overlaps another is
    flagged (stats slice_spill_overlapping_complete_event) and moved off the
    thread's track.
And ours: every thread that carries a slice has a name.
usage: perfetto_rules.py FILE...   (exit 1 and a reason per failure)"""
import json
import sys


def ns(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{what} is not a number: {v!r}")
    return int(v) * 1000 if float(v).is_integer() else round(v * 1000)


def check(path):
    errs = []
    with open(path) as f:
        doc = json.load(f)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        return [f"{path}: neither an array nor an object with traceEvents"]
    named, slices = set(), {}
    for i, e in enumerate(events):
        where = f"{path}: event {i}"
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str) or not e["ph"]:
            errs.append(f"{where}: no ph")
            continue
        for k in ("pid", "tid"):
            if k in e and not (isinstance(e[k], int) and 0 <= e[k] < 2**32):
                errs.append(f"{where}: {k} {e[k]!r}")
        pid = e.get("pid", 0)
        tid = e.get("tid", 0) or pid  # the importer's rule: no tid is the pid
        try:
            if e["ph"] == "X":
                if "dur" not in e or "ts" not in e:
                    errs.append(f"{where}: X without ts or dur")
                    continue
                ts, dur = ns(e["ts"], "ts"), ns(e["dur"], "dur")
                if dur < 0:
                    errs.append(f"{where}: negative dur")
                slices.setdefault((pid, tid), []).append((ts, dur, e.get("name", "")))
            elif e["ph"] == "M":
                a = e.get("args", {})
                if e.get("name") in ("thread_name", "process_name"):
                    if not isinstance(a.get("name"), str) or not a["name"]:
                        errs.append(f"{where}: {e.get('name')} without args.name")
                    elif e["name"] == "thread_name":
                        named.add((pid, tid))
                elif e.get("name") in ("thread_sort_index", "process_sort_index"):
                    if not isinstance(a.get("sort_index"), int):
                        errs.append(f"{where}: sort_index not an integer")
        except ValueError as x:
            errs.append(f"{where}: {x}")
    for (pid, tid), v in slices.items():
        if (pid, tid) not in named:
            errs.append(f"{path}: thread {pid}/{tid} has slices but no thread_name")
        v.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for ts, dur, name in v:
            while open_ends and open_ends[-1][0] <= ts:
                open_ends.pop()
            if open_ends and ts + dur > open_ends[-1][0]:
                errs.append(f"{path}: thread {pid}/{tid}: '{name}' at {ts} ns partly overlaps '{open_ends[-1][1]}'")
            open_ends.append((ts + dur, name))
    return errs


def main():
    errs = []
    for p in sys.argv[1:]:
        try:
            errs += check(p)
        except (OSError, ValueError) as x:
            errs.append(f"{p}: {x}")
    for m in errs[:20]:
        print(m, file=sys.stderr)
    sys.exit(1 if errs or len(sys.argv) < 2 else 0)


if __name__ == "__main__":
    main()
