"""Exported records as `umpire export` wrote them before match commitments existed."""

from __future__ import annotations

import re
from typing import Any

#: The start message's match commitment sentence.
PUBLISHED = re.compile(r" Match commitment \([^)]*\): `[0-9a-f]{64}`\.")


def before_match_commitments(record: dict[str, Any]) -> dict[str, Any]:
    """`record` changed in place (and returned) to one exported before match commitments:
    no match commitment, start or end time, and none published in the start message."""
    for key in ("match_commitment", "started_at", "ended_at"):
        record.pop(key, None)
    for m in record.get("messages", []):
        m["text"] = PUBLISHED.sub("", m["text"])
    return record
