# Shared by the dsh-run tests: validate a report as its consumers read it --
# CTRF against the documented schema (JSON Schema draft 7), JUnit XML
# against the JUnit XSD.  Sourced after lib.sh; not a test itself.
REPORTS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CTRF_SCHEMA=$REPORTS_ROOT/tests/schemas/dsh-run-ctrf.schema.json
JUNIT_XSD=$REPORTS_ROOT/tests/schemas/junit.xsd
ctrf_valid() { # FILE
	"$PY" - "$CTRF_SCHEMA" "$1" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2])), schema)
EOF
}
junit_valid() { xmllint --noout --schema "$JUNIT_XSD" "$1" 2>&1; }
# JUnit as rows: "suite NAME tests failures errors skipped" per testsuite
# (and "suites ..." for <testsuites>), "NAME|ELEMENT|file|line" per testcase
# (ELEMENT: failure, error, skipped or passed), "COUNT-MISMATCH ..." when a
# header's count is not the number of its elements.
junit_rows() { # FILE
	"$PY" - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
kinds = ("failure", "error", "skipped")
ATTR = {"tests": "tests", "failure": "failures", "error": "errors", "skipped": "skipped"}
def attrs(e):
    return " ".join(e.get(k, "-") for k in ("tests", "failures", "errors", "skipped"))
print("suites", attrs(root))
total = dict.fromkeys(kinds + ("tests",), 0)
for ts in root.iter("testsuite"):
    print("suite", ts.get("name"), attrs(ts))
    n = dict.fromkeys(kinds, 0)
    cases = ts.findall("testcase")
    for tc in cases:
        el = [k for k in kinds if tc.find(k) is not None]
        for k in el:
            n[k] += 1
        print("%s|%s|%s|%s" % (tc.get("name"), ",".join(el) or "passed", tc.get("file"), tc.get("line")))
    got = {"tests": len(cases), **n}
    for k, v in got.items():
        total[k] += v
        if ts.get(ATTR[k]) != str(v):
            print("COUNT-MISMATCH suite", ts.get("name"), ATTR[k], ts.get(ATTR[k]), "elements", v)
for k, v in total.items():
    if root.get(ATTR[k]) != str(v):
        print("COUNT-MISMATCH testsuites", ATTR[k], root.get(ATTR[k]), "elements", v)
EOF
}
ctrf_rows() { jq -r '.results.tests[] | "\(.name)|\(.status)|\(.filePath)|\(.line)"' "$1"; }
ctrf_summary() { jq -r '.results.summary | "\(.tests) \(.passed) \(.failed) \(.skipped) \(.pending) \(.other)"' "$1"; }
