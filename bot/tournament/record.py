"""An event's full record as one JSON (`umpire export --event N`, `/tournament export`), and
its check (`umpire verify EVENT.json`).

The record holds the event (name, game, format, entrants, the seeding and the commitment
to its seed, the pairings with their results, the standings) and each match that played a
pairing as `umpire export ID` writes it: the one that decided it, and any played before it
and ended without a winner (aborted by the hosts, or a draw the format plays again). The
check verifies every match on its own (bot/console/records.py: seed, commitments, replay),
then that each pairing's recorded result is its match's (the winner, the score, the
players) and that its earlier matches ended without a winner, that a random seeding is the
committed draw, and that the format run again from the seeding and the results gives the
recorded pairings and standings (not checked once a player was replaced or withdrew). A
match that is still running has no seed yet: it cannot be verified until it ends.
"""

from __future__ import annotations

from typing import Any

from bot.console.records import RecordError, verify
from bot.status import RUNNING
from bot.tournament import store
from bot.tournament.event import EventError, format_seed, random_order
from bot.tournament.formats import format_named
from bot.tournament.formats.base import Result
from bot.umpire import MatchService
from games.core.chance import seed_commitment

KIND = "umpire-event"


async def event_record(service: MatchService, event_id: int) -> dict[str, Any]:
    """The event's record, with the export of every match that plays (or played) a pairing."""
    event = await store.load(service.repo.engine, event_id)
    if event is None:
        raise EventError(f"There is no event #{event_id}.")
    fmt = format_named(event.format)
    state = fmt.load(event.state) if event.state is not None else None
    played = await store.pairing_matches(service.repo.engine, event_id)
    pairings = []
    for p in state.pairings if state else []:
        result = state.results.get(p.id) if state else None
        linked = event.matches.get(p.id)
        pairings.append({**p.model_dump(mode="json"), "match": linked,
                         "earlier": [m for m in played.get(p.id, []) if m != linked],
                         "result": result.model_dump(mode="json") if result else None})
    exported = sorted(set(event.matches.values()) | {m for p in pairings for m in p["earlier"]})
    started = event.status != "signup"  # the seed is secret until the start reveals it
    return {
        "kind": KIND, "event": event.id, "name": event.name, "game": event.game,
        "format": event.format, "rounds": event.rounds, "settings": event.settings,
        "rated": event.rated, "status": event.status,
        "entrants": [e.model_dump(mode="json") for e in event.entrants],
        "seeding": {"method": event.seeded or ("random" if started else ""),
                    "commitment": event.commitment,
                    "seed": event.seed if started else None,
                    "salt": event.salt if started else None},
        "pairings": pairings,
        "standings": [s.model_dump(mode="json") for s in fmt.standings(state)] if state else [],
        "matches": [await service.export(m) for m in exported],
    }


def is_event_record(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == KIND


def verify_event(data: dict[str, Any]) -> tuple[list[str], bool]:
    """One line per check (the seeding, each match, each pairing's result) and whether all
    passed."""
    lines: list[str] = []
    ok = True
    try:
        pairings = list(data["pairings"])
        matches = {int(m["match"]): m for m in data["matches"]}
    except (KeyError, TypeError, ValueError):
        return ["NOT verified: this is not a well-formed event record; give a record written "
                "by `umpire export --event N`, unchanged."], False
    seeding = _seeding(data)
    if seeding:
        lines.append(seeding)
        ok = ok and seeding.startswith("verified")
    replay = _replayed(data)
    if replay:
        lines.append(replay)
        ok = ok and replay.startswith("verified")
    for match_id, match in matches.items():
        try:
            lines.append(verify(match))
        except RecordError as exc:
            lines.append(f"NOT verified: match #{match_id}: {exc}")
            ok = False
    played = {p.get("match") for p in pairings} | \
        {m for p in pairings for m in p.get("earlier") or []}
    for match_id in sorted(set(matches) - played):
        lines.append(f"NOT verified: match #{match_id} is in the record but plays none of "
                     "its pairings.")
        ok = False
    for pairing in pairings:
        problem = _pairing_problem(pairing, matches) or _earlier_problem(pairing, matches)
        if problem:
            lines.append(f"NOT verified: pairing {pairing.get('id')}: {problem}")
            ok = False
    decided = sum(1 for p in pairings if p.get("result"))
    lines.append(f"{'verified' if ok else 'NOT verified'}: event #{data.get('event')} "
                 f"({data.get('name')}): {len(matches)} matches, {decided} of {len(pairings)} "
                 "pairings decided" + (", each result its match's." if ok else "."))
    return lines, ok


def _seeding(data: dict[str, Any]) -> str | None:
    """A random seeding: the revealed seed and salt hash to the commitment, and the draw
    from them gives the recorded order (the first entrants, before any substitute)."""
    seeding = data.get("seeding") or {}
    seed, salt = seeding.get("seed"), seeding.get("salt")
    if seed is None:
        return None
    if seed_commitment(str(seed), salt) != seeding.get("commitment"):
        return ("NOT verified: the event's revealed seed and salt do not hash to its "
                f"commitment {seeding.get('commitment')}.")
    if seeding.get("method") != "random":
        how = "in the order given" if seeding.get("method") == "order" else "by rating"
        return f"verified: the event's seed and salt match its commitment (seeded {how})."
    order = [e["id"] for e in data.get("entrants", []) if not e.get("replaces")]
    if random_order(str(seed), order) != order:
        return ("NOT verified: the recorded seeding is not the committed draw from the "
                "revealed seed.")
    return ("verified: the event's seed and salt match its commitment, and the seeding is "
            "the draw from them.")


def _replayed(data: dict[str, Any]) -> str | None:
    """The format run again from the seeding and the recorded results gives the recorded
    pairings, results and standings (an event without replacements or withdrawals: when
    those happened between results is not in the record)."""
    seed = (data.get("seeding") or {}).get("seed")
    entrants = data.get("entrants", [])
    if seed is None or any(e.get("replaces") or e.get("withdrawn") for e in entrants):
        return None
    try:
        fmt = format_named(str(data["format"]))
        results = {p["id"]: Result.model_validate(p["result"])
                   for p in data["pairings"] if p.get("result")}
        state = fmt.start([e["id"] for e in entrants], format_seed(str(seed)),
                          rounds=data.get("rounds"))
        while True:
            state, opened = fmt.next_round(state)
            if not opened:
                break
            for pairing in opened:
                if pairing.id not in state.results and pairing.id in results:
                    state = fmt.record(state, results[pairing.id])
            if any(p.id not in state.results for p in opened if p.player1 is not None):
                break  # a round still played
    except Exception as exc:  # a format or a result the record makes up
        return f"NOT verified: the event's format cannot be run again from its record ({exc})."
    shown = [{k: v for k, v in p.items() if k not in ("match", "earlier", "result")}
             for p in data["pairings"]]
    if [p.model_dump(mode="json") for p in state.pairings] != shown:
        return ("NOT verified: the recorded pairings are not those the format makes from the "
                "seeding and the recorded results.")
    if {k: r.model_dump(mode="json") for k, r in state.results.items()} != \
            {p["id"]: p["result"] for p in data["pairings"] if p.get("result")}:
        return "NOT verified: the recorded results are not those of the pairings."
    if [s.model_dump(mode="json") for s in fmt.standings(state)] != data.get("standings"):
        return ("NOT verified: the recorded standings are not those the format gives for the "
                "recorded results.")
    return ("verified: the format, run again from the seeding and the results, gives the "
            "recorded pairings and standings.")


def _earlier_problem(pairing: dict[str, Any],
                     matches: dict[int, dict[str, Any]]) -> str | None:
    """Why a match that played the pairing before its last one does not belong there: each
    must be of the pairing's players and have ended without a winner (aborted, or a draw the
    format plays again); a match with a winner would have decided the pairing."""
    for match_id in pairing.get("earlier") or []:
        match = matches.get(int(match_id))
        if match is None:
            return f"its earlier match #{match_id} is not in the record."
        ids = sorted(str(p.get("id")) for p in match.get("players", []))
        if ids != sorted([str(pairing.get("player0")), str(pairing.get("player1"))]):
            return f"its earlier match #{match_id} is played by {', '.join(ids)}, not its players."
        if match.get("status") in RUNNING:
            return f"its earlier match #{match_id} is still being played."
        if (match.get("result") or {}).get("winner") is not None:
            return (f"its earlier match #{match_id} has a winner, so it would have decided the "
                    "pairing, which was played again instead.")
    return None


def _pairing_problem(pairing: dict[str, Any], matches: dict[int, dict[str, Any]]) -> str | None:
    """Why a pairing's recorded result is not its match's, or None."""
    result = pairing.get("result")
    match_id = pairing.get("match")
    if match_id is None:
        if result and not (pairing.get("player1") is None or result.get("walkover")):
            return "it has a result but no match, and it is neither a bye nor a walkover."
        return None
    match = matches.get(int(match_id))
    if match is None:
        return f"its match #{match_id} is not in the record."
    ids = [p.get("id") for p in match.get("players", [])]
    if sorted(ids) != sorted([pairing.get("player0"), pairing.get("player1")]):  # type: ignore[type-var]  # (a bye has no match)
        return f"match #{match_id} is played by {', '.join(map(str, ids))}, not its players."
    if not result:
        return None if match.get("status") in RUNNING else \
            f"match #{match_id} has ended but the pairing has no result."
    played = match.get("result") or {}
    seat = played.get("winner")
    if seat is None and played.get("host"):  # stopped by the hosts: only a walkover decides
        return None if result.get("walkover") else (
            f"match #{match_id} was stopped without a winner, but the pairing records a "
            "result that is not a walkover.")
    if seat is None:  # a draw by the rules
        return None if result.get("winner") is None and not result.get("walkover") else (
            f"match #{match_id} is a draw, but the pairing records "
            f"{result.get('winner') or 'a walkover'}.")
    if ids[seat] != result.get("winner"):
        return (f"the pairing's winner is {result.get('winner')}, but match #{match_id} "
                f"was won by {ids[seat]}.")
    score = played.get("score")
    if score and result.get("score"):
        mine = score if ids[0] == pairing.get("player0") else list(reversed(score))
        if list(mine) != list(result["score"]):
            return f"the pairing's score {result['score']} is not match #{match_id}'s {mine}."
    return None
