"""The match commitment: one SHA-256, published in the room when a match starts and kept
with the match, that binds what a record later states about the start of the match.

It covers the game, the players (id, name, bot; seat order), the settings as stored, the
start time and the seed commitment (which covers the salted seed). Each of these is hashed
on its own (a *part*) and the commitment is the hash of the parts, so `verify` can say
which one a changed record differs in: a renamed player, a changed setting, shifted times.
The hashed form is canonical JSON (keys sorted, no spaces, UTF-8); the start time is
ISO 8601 in UTC with microseconds, e.g. "2026-11-26T14:12:55.123456+00:00".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

#: What the commitment covers, in the words `verify` uses for each.
COVERED = {"game": "the game", "players": "the players (ids, names, bots, seat order)",
           "settings": "the settings", "started_at": "the start time",
           "seed_commitment": "the seed commitment"}


def canonical(value: Any) -> bytes:
    """The one JSON text of `value` that is hashed."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def utc_text(moment: datetime) -> str:
    """A start time as it is committed (UTC, microseconds always shown)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parts_of(*, game: str, players: list[Any], settings: Mapping[str, Any],
             started_at: datetime, seed_commitment: str) -> dict[str, str]:
    """Each covered fact's own hash."""
    facts = {"game": game, "players": players, "settings": dict(settings),
             "started_at": utc_text(started_at), "seed_commitment": seed_commitment}
    return {key: sha256(facts[key]) for key in COVERED}


def commitment_of(parts: Mapping[str, str]) -> str:
    """The published commitment: the hash of the parts."""
    return sha256(dict(parts))


def match_commitment(**facts: Any) -> dict[str, Any]:
    """What is stored with the match and exported: {"sha256": ..., "parts": {...}}."""
    parts = parts_of(**facts)
    return {"sha256": commitment_of(parts), "parts": parts}
