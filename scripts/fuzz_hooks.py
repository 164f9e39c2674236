# Schemathesis hooks for scripts/fuzz.sh (loaded through SCHEMATHESIS_HOOKS): a strategy for the schema's custom
# scalar SafeInt (graphql-scalars), which schemathesis cannot generate by itself. Mostly values in range, some far
# outside it, so the service's own range check is fuzzed too. And the check of a run under row rules
# (FUZZ_ACCESS=1): no answer holds a project the fuzzing caller may not read.
import base64
import json
import os

import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes

SAFE = 2**53 - 1

schemathesis.graphql.scalar(
    "SafeInt",
    st.one_of(st.integers(min_value=-SAFE, max_value=SAFE), st.integers()).map(nodes.Int),
)


ALLOWED_COMPANIES = {int(c) for c in os.environ.get("FUZZ_ALLOWED_COMPANIES", "").split(",") if c}
FOREIGN_PROJECTS = {int(p) for p in os.environ.get("FUZZ_FOREIGN_PROJECTS", "").split(",") if p}


def foreign_in(value, where="$"):
    """Where the answer holds a project of another company: by company_id, by project_id, or by global id."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = foreign_in(item, f"{where}[{i}]")
            if found:
                return found
        return None
    if not isinstance(value, dict):
        return None
    project_id = value.get("project_id")
    if isinstance(project_id, int) and not isinstance(project_id, bool):
        company = value.get("company_id")
        if isinstance(company, int) and ALLOWED_COMPANIES and company not in ALLOWED_COMPANIES:
            return f"{where}: project {project_id} of company {company}"
        if project_id in FOREIGN_PROJECTS:
            return f"{where}: project {project_id}, of another company"
    global_id = value.get("id")
    if isinstance(global_id, str):
        try:
            text = base64.urlsafe_b64decode(global_id + "=" * (-len(global_id) % 4)).decode("utf-8")
        except Exception:
            text = ""
        if text.startswith("Project:") and text[8:].isdigit() and int(text[8:]) in FOREIGN_PROJECTS:
            return f"{where}: {text}, of another company"
    for key, item in value.items():
        found = foreign_in(item, f"{where}.{key}")
        if found:
            return found
    return None


@schemathesis.check
def no_foreign_project(ctx, response, case):
    """Under row rules (FUZZ_ACCESS=1): no answer holds a project of a company the caller may not read."""
    if not ALLOWED_COMPANIES and not FOREIGN_PROJECTS:
        return None
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return None
    found = foreign_in(body)
    if found:
        raise AssertionError(f"the answer holds a project the caller may not read: {found}")
    return None
