"""Composing the umpire's messages from a game's events and prompts.

One accepted command produces at most one message per audience: every event for that
audience, then the decisions it now waits for. The host log ("umpire") also receives every
private event as it happens, marked with whom it was for, so hosts see every secret.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.store.repository import ClockData, OutboxData
from bot.transport import UNTIL
from games.core import Event, Outcome, Prompt
from games.core.contract import OnTimeout

AUDIENCES = ("public", "seat0", "seat1", "umpire")


def audience_of(seat: int) -> str:
    return f"seat{seat}"


def until(moment: datetime | None) -> str:
    return f"{{until:{moment.isoformat()}}}" if moment else ""


def compose(
    events: Sequence[Event],
    new_prompts: Sequence[Prompt],
    clocks: dict[str, ClockData],
    *,
    header: Sequence[tuple[str, str]] = (),
    footer: Sequence[tuple[str, str]] = (),
    status: str | None = None,
    met: Collection[tuple[int, str]] = (),
) -> list[OutboxData]:
    """Group everything one step produced into one message per audience.

    `header` / `footer` are extra (audience, line) pairs, e.g. the match start or end notice.
    `status` is the game's public status line as of this step (`Game.status`): it rides in
    every player-facing message's payload, so a transport shows the figures of the message's
    own moment even if it is delivered (or resent) later. A player-facing message that asks
    for nothing and shows no deadline is marked `fold`: the transport may post it with the
    next message of its channel (bot/delivery.py). The deadlines a message shows
    are listed in its payload with the decisions they belong to (`deadline_keys`), so that
    it can show them as they are when it is posted (a late or held prompt: later).
    A prompt whose (seat, kind) is in `met` (that player has had this kind of decision
    explained in the match) shows its compact `brief`, when it has one.
    """
    lines: dict[str, list[str]] = {a: [] for a in AUDIENCES}
    for audience, line in header:
        lines[audience].append(line)
    for e in events:
        if e.audience.kind == "public":
            lines["public"].append(e.text)
        elif e.audience.kind == "seat":
            lines[audience_of(e.audience.seat or 0)].append(e.text)
            lines["umpire"].append(f"[to {{P{e.audience.seat}}}] {e.text}")
        else:
            lines["umpire"].append(e.text)
    prompt_payload: dict[str, list[dict[str, object]]] = {a: [] for a in AUDIENCES}
    deadlines: dict[str, dict[str, list[str]]] = {a: {} for a in AUDIENCES}
    waiting_private: list[Prompt] = []
    for p in new_prompts:
        clock = clocks.get(p.key)
        place = audience_of(p.seat) if p.private else "public"
        lines[place].append(prompt_line(p, clock, brief=(p.seat, p.kind) in met))
        if clock is not None and clock.limit_at is not None:
            deadlines[place].setdefault(clock.limit_at.isoformat(), []).append(p.key)
        prompt_payload[place].append({
            "key": p.key, "seat": p.seat, "kind": p.kind, "choices": list(p.choices),
            "deadline": clock.limit_at.isoformat() if clock and clock.limit_at else None,
        })
        if p.private and not p.quiet:  # a quiet prompt's existence is the seat's secret
            waiting_private.append(p)
    if waiting_private:
        lines["public"].append(waiting_line(waiting_private, clocks))
        limited = [(c.limit_at, p.key) for p in waiting_private
                   if (c := clocks.get(p.key)) and c.limit_at]
        if limited:  # the line shows the soonest of them
            shown = min(t for t, _ in limited).isoformat()
            deadlines["public"].setdefault(shown, []).extend(k for _, k in limited)
    for audience, line in footer:
        lines[audience].append(line)
    out: list[OutboxData] = []
    for audience in AUDIENCES:
        if lines[audience]:
            payload: dict[str, object] = {}
            if prompt_payload[audience]:
                payload["prompts"] = prompt_payload[audience]
            if deadlines[audience]:
                payload["deadlines"] = deadlines[audience]
            if status and audience != "umpire":
                payload["status"] = status
            if audience != "umpire" and not prompt_payload[audience] and \
                    not deadlines[audience]:
                payload["fold"] = True  # an announcement: may join its channel's next message
            out.append(OutboxData(audience=audience, text="\n".join(lines[audience]),
                                  payload=payload))
    return out


def mark_final(outbox: Sequence[OutboxData]) -> None:
    """Mark the room's message of the step that ended the match as its last (`final`): a
    transport may put what follows a match on it (the Discord room's Rematch button)."""
    for data in outbox:
        if data.audience == "public":
            data.payload["final"] = True
            data.payload.pop("fold", None)


def deadline_keys(payload: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each deadline a message shows (its ISO text) -> the decisions it is the soonest limit
    of. Messages stored before the payload listed them: their prompts' own deadlines."""
    listed = payload.get("deadlines")
    if isinstance(listed, Mapping):
        return {str(shown): [str(k) for k in keys] for shown, keys in listed.items()}
    found: dict[str, list[str]] = {}
    for p in payload.get("prompts") or ():
        if p.get("deadline"):
            found.setdefault(str(p["deadline"]), []).append(str(p["key"]))
    return found


def moved_deadlines(text: str, moved: Mapping[str, str]) -> str:
    """The text with each `{until:OLD}` in `moved` showing its new moment instead."""
    return UNTIL.sub(lambda m: f"{{until:{moved.get(m.group(1), m.group(1))}}}", text)


def prompt_line(p: Prompt, clock: ClockData | None, *, brief: bool = False) -> str:
    """The line asking for a decision: whose, what, until when. `brief`: the compact form
    (the game's `brief`, without what a timeout does) for a kind the player knows by now;
    the how-to stays with /help and the buttons."""
    compact = brief and bool(p.brief)
    line = f"▶ {{P{p.seat}}}, your decision: {p.brief if compact else p.text}"
    if clock is not None and clock.limit_at is not None:
        line += f" (⏰ {until(clock.limit_at)}"
        if p.bank:
            line += f", then your time bank of {int(p.bank)} s"
        line += ")"
    if p.timeout_text and not compact:
        line += f" {as_sentence(p.timeout_text)}"
    return line


def decision_label(p: Prompt, at_most: int = 60) -> str:
    """A decision as a reader knows it (its compact line, else its instruction's first
    line, cut at `at_most` characters), never its internal kind (`draft_pick`)."""
    text = (p.brief or p.text.splitlines()[0] if p.text else p.brief).strip()
    return text if len(text) <= at_most else text[:at_most - 1].rstrip() + "…"


def as_sentence(text: str) -> str:
    """A game's fragment ("if time runs out, you fold") as a sentence of its own: capital
    first letter, full stop at the end."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def waiting_line(prompts: Sequence[Prompt], clocks: dict[str, ClockData]) -> str:
    seats = sorted({p.seat for p in prompts})
    who = " and ".join(f"{{P{s}}}" for s in seats)
    limits = [c.limit_at for p in prompts if (c := clocks.get(p.key)) and c.limit_at]
    line = f"⏳ Waiting for {who} to decide in their table channel"
    line += "s" if len(seats) > 1 else ""
    if limits:
        line += f" (⏰ {until(min(limits))})"
    return line + "."


def seed_reveal(seed: str, salt: str | None) -> str:
    """The seed (and the salt the commitment covers with it) as revealed at the end."""
    if salt is None:  # stored before commitments were salted
        return f"The seed was `{seed}`"
    return (f"The seed was `{seed}` and its salt `{salt}` (the commitment is SHA-256 of "
            "`<salt>:<seed>`)")


def host_seed_note(transport: Any) -> str:
    """The start's announcement that a host chose the seed (such a match is unrated)."""
    if not (transport or {}).get("host_seed"):
        return ""
    return " The seed was chosen by a host: this match is unrated."


def outcome_line(outcome: Outcome, seed: str, salt: str | None = None) -> str:
    if outcome.winner is None:
        head = "🏁 Match over: a draw"
    else:
        head = f"🏁 Match over: {{P{outcome.winner}}} wins"
    first = outcome.winner or 0  # the winner's score first ("Bea wins 6-4")
    score = f" {outcome.score[first]}-{outcome.score[1 - first]}" if outcome.score else ""
    return (f"{head}{score} ({outcome.reason}). {seed_reveal(seed, salt)}: replay the record with it "
            "to check that nothing was rigged.")


def reminder_times(p: Prompt, clock: ClockData) -> list[tuple[datetime, str]]:
    """Every reminder of a decision clock, in order: (when, text)."""
    out: list[tuple[datetime, str]] = []
    if clock.limit_at is None:
        return out
    limit = p.time_limit or 0.0
    for left in sorted(p.reminders, reverse=True):
        if 0 < left < limit:
            out.append((clock.limit_at - timedelta(seconds=left),
                        f"⏰ {{P{p.seat}}}, {int(left)} s left for your decision."))
    if p.bank and clock.deadline_at and p.bank_reminder_every:
        out.append((clock.limit_at, f"⏰ {{P{p.seat}}}, your turn time is up: your time bank "
                                    f"of {int(p.bank)} s is running."))
        used = p.bank_reminder_every
        while used < p.bank:
            out.append((clock.limit_at + timedelta(seconds=used),
                        f"⏰ {{P{p.seat}}} has used {int(used)} s of their time bank "
                        f"({int(p.bank - used)} s left)."))
            used += p.bank_reminder_every
    if p.on_timeout == OnTimeout.NOTHING:
        out.append((clock.limit_at, f"⏰ {{P{p.seat}}}, your time for this decision is up; "
                                    "please decide now (the hosts have been told)."))
    return out
