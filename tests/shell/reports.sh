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
