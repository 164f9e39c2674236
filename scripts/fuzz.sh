#!/usr/bin/env bash
# npm run fuzz: property-based fuzzing of the running service with schemathesis, against the REST facade's
# /openapi.json and the GraphQL schema at /graphql (by introspection). Starts the service on a temporary data dir
# (the embedded database, or MONGODB_URI when set), runs FUZZ_EXAMPLES cases per operation (default 200: about
# 1,000 REST and 2,600 GraphQL cases) with a fixed seed so a run can be repeated, and fails when any answer is a
# server error (status >= 500). schemathesis is installed from PyPI into .fuzz/venv (git-ignored) on first use.
#
#   FUZZ_EXAMPLES=500 FUZZ_SEED=7 npm run fuzz
#
# FUZZ_ACCESS=1 runs it under row rules: the service gets ACCESS_POLICY=examples/access-policy.json (the contract's
# example), an admin first creates projects in companies 1 to 4, and the fuzzer acts as a student of companies 1 and 2
# (X-User-Claims). Every answer is then also checked to hold no project of companies 3 and 4 (scripts/fuzz_hooks.py's
# no_foreign_project: by company_id, project_id or global id).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION="4.32.5"
EXAMPLES="${FUZZ_EXAMPLES:-200}"
SEED="${FUZZ_SEED:-20261122}"
# not_a_server_error is the gate; FUZZ_CHECKS=all also checks statuses, content types and bodies against the schema.
CHECKS="${FUZZ_CHECKS:-not_a_server_error}"
ACCESS="${FUZZ_ACCESS:-0}"
WORK=".fuzz"
VENV="$WORK/venv"
mkdir -p "$WORK"

if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "Installing schemathesis $SCHEMATHESIS_VERSION into $VENV (first run only)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

DATA_DIR_TMP="$(mktemp -d "${TMPDIR:-/tmp}/project-service-fuzz-XXXXXX")"
LOG="$WORK/service.log"
SERVICE_PID=""
cleanup() {
  if [[ -n "$SERVICE_PID" ]] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill -TERM "$SERVICE_PID"
    wait "$SERVICE_PID" 2>/dev/null || true
  fi
  rm -rf "$DATA_DIR_TMP"
}
trap cleanup EXIT

# Rate limiting off: the fuzzer would otherwise spend most cases on 429s. LOG_LEVEL=warn keeps the internal errors
# (logged at error level with their detail) and drops the per-request lines.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT"
POLICY=()
[[ "$ACCESS" == "1" ]] && POLICY=("ACCESS_POLICY=examples/access-policy.json")
env "${POLICY[@]}" DATA_DIR="$DATA_DIR_TMP" PORT="$PORT" HOST=127.0.0.1 RATE_LIMIT_PER_MINUTE=0 LOG_LEVEL=warn NODE_ENV= \
  node scripts/run.js dist/src/index.js >"$LOG" 2>&1 &
SERVICE_PID=$!

# Start-up may include compiling dist/ and, on a new machine, building FerretDB (minutes).
ready=""
for _ in $(seq 1 600); do
  if curl -sf "$URL/readyz" >/dev/null 2>&1; then ready=yes; break; fi
  kill -0 "$SERVICE_PID" 2>/dev/null || { cat "$LOG"; echo "The service did not start" >&2; exit 1; }
  sleep 0.5
done
[[ -n "$ready" ]] || { cat "$LOG"; echo "The service was not ready within 5 minutes" >&2; exit 1; }
echo "Fuzzing the service at $URL ($EXAMPLES cases per operation, seed $SEED)"

HEADERS=(--header "X-User-Role: admin" --header "X-User-Id: fuzzer")
GRAPHQL_ONLY=()
if [[ "$ACCESS" == "1" ]]; then
  # Three projects in each of companies 1 to 4, created by an admin; the fuzzer may read those of 1 and 2 only.
  foreign=()
  for company in 1 2 3 4; do
    for n in 1 2 3; do
      id=$(curl -sf "$URL/projects" -H 'content-type: application/json' -H 'x-user-role: admin' -H 'x-user-id: fuzz-seed' \
        -d "{\"project_name\":\"Seeded $company-$n\",\"project_desc\":\"For the fuzzer\",\"company_id\":$company,\"project_status\":\"proposed\",\"start_date\":\"2026-01-01\",\"end_date\":\"2026-06-30\"}" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["project_id"])')
      if [[ $company -gt 2 ]]; then foreign+=("$id"); fi
    done
  done
  export FUZZ_ALLOWED_COMPANIES="1,2"
  FUZZ_FOREIGN_PROJECTS="$(IFS=,; echo "${foreign[*]}")"
  export FUZZ_FOREIGN_PROJECTS
  HEADERS=(--header "X-User-Role: student" --header "X-User-Id: fuzzer" --header 'X-User-Claims: {"company_ids":[1,2]}')
  CHECKS="$CHECKS,no_foreign_project"
  # The role table refuses students' personal data to a student (FORBIDDEN), which schemathesis counts as a GraphQL
  # server error (an error with a path): those three queries are left out.
  GRAPHQL_ONLY=(--exclude-name-regex '^Query\.(student|students|studentsConnection)$')
  echo "Under row rules (ACCESS_POLICY=examples/access-policy.json) as a student of companies 1 and 2; projects of companies 3 and 4: $FUZZ_FOREIGN_PROJECTS"
fi

export SCHEMATHESIS_HOOKS="scripts/fuzz_hooks.py"
status=0
run() {
  local name="$1"
  shift
  echo
  echo "== $name"
  "$VENV/bin/schemathesis" run "$@" \
    --checks "$CHECKS" \
    --max-examples "$EXAMPLES" \
    --seed "$SEED" \
    "${HEADERS[@]}" \
    --request-timeout 30 \
    --suppress-health-check all \
    --warnings off \
    --report junit --report-junit-path "$WORK/$name.junit.xml" || status=1
}
run rest "$URL/openapi.json" --url "$URL"
run graphql "$URL/graphql" "${GRAPHQL_ONLY[@]}"

internal=$(grep -c '"internal error"' "$LOG" || true)
echo
echo "Service log: $LOG ($internal internal errors logged)"
if [[ "$internal" != "0" ]]; then
  grep '"internal error"' "$LOG" | head -5 | cut -c1-400
  status=1
fi
if [[ $status -ne 0 ]]; then
  echo "Fuzzing found server errors (see above and $WORK/*.junit.xml)" >&2
else
  echo "No server error in any case"
fi
exit $status
