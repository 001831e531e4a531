#!/usr/bin/env python3
"""Validate dsh --json output against the JSON Schema (draft 2020-12).

json_validate.py SCHEMA DIR   -- the outputs lib.sh collected: DIR/X.json
  (X.cmd: the command line; X.pretty: --pretty, objects span lines;
  X.mixed: stderr interleaved, its "dsh: " lines are skipped; X.partial:
  the reader went away, a last unfinished line is not dsh's fault).
json_validate.py SCHEMA -     -- lines on stdin, one JSON value each.

Prints one line per problem (the output, the object's line, the schema's
complaint) and last "checked N", N the number of values checked.  Per
output also what the schema cannot say: the summary object, when there is
one, comes last, and there is one when an assertion ran or a command failed.
"""
import glob
import json
import os
import sys

import jsonschema


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"duplicate key {dup[0]!r}")
    return dict(pairs)


DECODER = json.JSONDecoder(parse_constant=reject_constant, object_pairs_hook=no_duplicates)


class Checker:
    def __init__(self, schema_path):
        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.Draft202012Validator
        cls.check_schema(schema)
        self.whole = cls(schema)
        # for the message only: the branch of the top-level oneOf the value meant
        self.branch = {
            k: cls({"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{k}"})
            for k in ("command", "summary")
        }
        self.schema, self.cls, self.by_cmd = schema, cls, {}
        self.seen = {}
        self.count = 0

    def validator(self, obj):
        """The whole schema, or, for a command object, the same schema with
        $defs/by_command cut to the branches whose "if" (on cmd alone)
        holds: the same verdict, 3-4 times faster.  The first object of
        each name is checked with both."""
        cmd = obj.get("cmd") if isinstance(obj, dict) else None
        if not isinstance(cmd, str):
            return self.whole
        if cmd not in self.by_cmd:
            v = self.whole
            branches = self.schema["$defs"]["by_command"]["allOf"]
            conds = [b.get("if", {}).get("properties", {}).get("cmd") for b in branches]
            if all(set(b) == {"if", "then"} and set(b["if"]) == {"properties"} and
                   set(b["if"]["properties"]) == {"cmd"} and c and set(c) <= {"const", "enum"} for b, c in zip(branches, conds)):
                keep = [b["then"] for b, c in zip(branches, conds) if c.get("const") == cmd or cmd in c.get("enum", ())]
                defs = dict(self.schema["$defs"], by_command={"allOf": keep})
                v = self.cls(dict(self.schema, **{"$defs": defs}))
            if v.is_valid(obj) != self.whole.is_valid(obj):
                raise SystemExit(f"json_validate.py: the schema cut for {cmd!r} disagrees with the whole schema")
            self.by_cmd[cmd] = v
        return self.by_cmd[cmd]

    def check(self, text):
        """(what is wrong or None, kind) for text, one JSON value; kind:
        "summary", "verdict" (a failure or an assertion), or None."""
        self.count += 1
        if text in self.seen:
            return self.seen[text]
        kind = None
        try:
            obj, end = DECODER.raw_decode(text)
            if text[end:].strip():
                raise ValueError("more than one value on the line")
        except ValueError as e:
            why = f"not JSON ({e})"
        else:
            why = None
            if not self.validator(obj).is_valid(obj):
                v = self.branch["summary" if isinstance(obj, dict) and "summary" in obj else "command"]
                err = jsonschema.exceptions.best_match(v.iter_errors(obj)) or \
                    jsonschema.exceptions.best_match(self.whole.iter_errors(obj))
                if err is None:
                    raise SystemExit(f"json_validate.py: the cut schema alone rejects {text}")
                where = "/".join(str(p) for p in err.absolute_path) or "(top)"
                why = f"at {where}: {err.message}"
            elif "summary" in obj:
                kind = "summary"
            elif not obj["ok"] or obj["cmd"] in ("assert", "expect"):
                kind = "verdict"
        self.seen[text] = why, kind
        return why, kind


def values(data, pretty):
    """(line number, text) of each JSON value in data."""
    if not pretty:
        for n, line in enumerate(data.split("\n"), 1):
            if line.strip():
                yield n, line
        return
    i = 0
    while True:
        while i < len(data) and data[i].isspace():
            i += 1
        if i >= len(data):
            return
        line = data.count("\n", 0, i) + 1
        try:
            _, end = DECODER.raw_decode(data, i)
        except ValueError:
            end = data.find("\n", i)
            end = len(data) if end < 0 else end
        yield line, data[i:end]
        i = end


def short(s, n=300):
    s = s.strip()
    return s if len(s) <= n else s[:n] + "..."


def main():
    schema, where = sys.argv[1], sys.argv[2]
    c = Checker(schema)
    if where == "-":
        for n, line in values(sys.stdin.read(), False):
            why, _ = c.check(line)
            if why:
                print(f"line {n}: {why}: {short(line)}")
        print(f"checked {c.count}")
        return
    for path in sorted(glob.glob(os.path.join(where, "*.json"))):
        stem = path[:-5]
        try:
            with open(stem + ".cmd", encoding="utf-8", errors="replace") as f:
                cmd = short(f.read(), 160)
        except OSError:
            cmd = os.path.basename(path)
        with open(path, "rb") as f:
            raw = f.read()
        if os.path.exists(stem + ".partial") and not raw.endswith(b"\n"):
            raw = raw[: raw.rfind(b"\n") + 1]
        if os.path.exists(stem + ".mixed"):
            raw = b"".join(l for l in raw.splitlines(True) if not l.startswith(b"dsh: "))
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"{cmd}: not UTF-8 ({e})")
            data = raw.decode("utf-8", "replace")
        summary_at = need_summary = None
        for n, text in values(data, os.path.exists(stem + ".pretty")):
            why, kind = c.check(text)
            if why:
                print(f"{cmd}: line {n}: {why}: {short(text)}")
            elif kind == "summary":
                if summary_at:
                    print(f"{cmd}: line {n}: a second summary object (the first at line {summary_at})")
                summary_at = n
            elif summary_at:
                print(f"{cmd}: line {n}: an object after the summary object (line {summary_at}): {short(text)}")
            elif kind == "verdict" and need_summary is None:
                need_summary = n
        # docs/json-schema.md: "When assertions ran or a command failed ... a last object follows"
        if need_summary and not summary_at and not os.path.exists(stem + ".partial"):
            print(f"{cmd}: no summary object, though line {need_summary} is an assertion or a failure")
    print(f"checked {c.count}")


if __name__ == "__main__":
    main()
