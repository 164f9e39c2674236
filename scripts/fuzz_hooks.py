# Schemathesis hooks for scripts/fuzz.sh (loaded through SCHEMATHESIS_HOOKS): a strategy for the schema's custom
# scalar SafeInt (graphql-scalars), which schemathesis cannot generate by itself. Mostly values in range, some far
# outside it, so the service's own range check is fuzzed too.
import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes

SAFE = 2**53 - 1

schemathesis.graphql.scalar(
    "SafeInt",
    st.one_of(st.integers(min_value=-SAFE, max_value=SAFE), st.integers()).map(nodes.Int),
)
