# Schemathesis hooks for `npm run fuzz` (scripts/fuzz.ts; a Python module name, hence the underscore).
#
# The OpenAPI document states every rule of a request that JSON Schema can express. Two rules it cannot, and says so
# in words; without these hooks Schemathesis would call each of their refusals a "schema-valid request refused":
#   - a page cursor is a MAC-sealed value only the API issues (src/store/cursor.ts): the document gives its form,
#     but no generated string of that form is one;
#   - a recovery window's `until` must be after its `since`: JSON Schema cannot compare two members.
# (An Idempotency-Key reused with another request, a 422 that depends on what came before, is kept out by the signing
# proxy: scripts/lib/signing-proxy.ts gives every request a fresh key.)
# `filter_case` runs in the coverage and fuzzing phases alike (a component hook such as `filter_query` does not run
# in the coverage phase). It leaves out only cases Schemathesis generated as valid (positive) that break one of
# these two rules; negative cases still go, and the refusals themselves are covered by the test suite
# (test/integration/events-listing.test.ts for forged cursors, test/integration/recovery-campaigns.test.ts).
import re
from datetime import datetime

import schemathesis

RECOVER = "/v1/webhooks/subscriptions/{subscription_id}/recover"
DATE_TIME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?([Zz]|[+-]\d\d:\d\d)")


def instant_ms(value):
    """A date-time as the API compares it (JavaScript's Date: whole milliseconds), or None when unreadable here."""
    match = DATE_TIME.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    head, fraction, offset = match.groups()
    millis = (fraction or "").ljust(3, "0")[:3]
    try:
        at = datetime.fromisoformat(f"{head}.{millis}{'+00:00' if offset in ('Z', 'z') else offset}")
    except ValueError:
        return None  # e.g. a leap second: the API judges it
    # A finer fraction moves up to the next millisecond, as the API's window bounds do (src/api/schemas/common.ts).
    finer = 1 if re.search(r"[1-9]", (fraction or "")[3:]) else 0
    return round(at.timestamp() * 1000) + finer


def breaks_unstated_rule(case):
    query = case.query if isinstance(case.query, dict) else {}
    if "cursor" in query:
        return True
    if case.method.upper() == "POST" and case.operation.path == RECOVER and isinstance(case.body, dict):
        since, until = instant_ms(case.body.get("since")), instant_ms(case.body.get("until"))
        return since is not None and until is not None and until <= since
    return False


@schemathesis.hook
def filter_case(ctx, case):
    meta = case.meta
    positive = meta is not None and meta.generation.mode.is_positive
    return not (positive and breaks_unstated_rule(case))
