"""Pictures of an event for people: the standings and the bracket, as text and as a PNG.

Pure: from a format's state to strings and bytes, with no Discord (the cog puts them in an
embed or a file). A text bracket is readable up to 8 players (`needs_picture`); past that
the bracket is drawn with Pillow. The drawing is planned first (`bracket_layout`: boxes
and labels at positions) and painted second, so that what is drawn can be checked without
reading pixels back.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from .formats import Format, FormatState, Standing, format_named
from .formats.bracket import UNKNOWN, BracketFormat, Evaluation, Node

TEXT_BRACKET_MAX = 8
TIEBREAK_LABELS = {"swiss": ("Buch", "SB", "H2H"), "roundrobin": ("SB", "H2H")}
SECTION_TITLES = {
    "": "",
    "winners": "Winners' bracket",
    "losers": "Losers' bracket",
    "final": "Grand final",
}


def _bracket_nodes(state: FormatState) -> list[Node] | None:
    """The graph of an elimination event; None for the formats that play for points."""
    fmt = format_named(state.format)
    return fmt.nodes(len(state.entrants)) if isinstance(fmt, BracketFormat) else None


def needs_picture(state: FormatState) -> bool:
    """Whether a text bracket would be unreadable (more than 8 players)."""
    return _bracket_nodes(state) is not None and len(state.entrants) > TEXT_BRACKET_MAX


def _num(x: float) -> str:
    return f"{x:g}"


TIEBREAK_NAMES = {
    "Buch": "Buchholz, the sum of the points of every opponent met",
    "SB": "Sonneborn-Berger, the points of every opponent beaten plus half those drawn",
    "H2H": "head-to-head, the points scored against the others still level (shown only "
    "for them)",
}


def _byes(state: FormatState) -> dict[str, int]:
    count = dict.fromkeys(state.entrants, 0)
    for p in state.pairings:
        if p.player1 is None and p.id in state.results:
            count[state.current(p.player0)] += 1
    return count


def _deciders(state: FormatState, table: list[Standing], labels: tuple[str, ...]) -> list[str]:
    """For each line, what put it below the line above when their points were level: the
    first tie-break that differs, else the seed ("" where the points decided)."""
    shown = [""]
    for above, line in zip(table, table[1:], strict=False):
        if above.points != line.points:
            shown.append("")
            continue
        differ = [label for label, a, b in zip(labels, above.tiebreaks, line.tiebreaks,
                                               strict=False) if a != b]
        shown.append(differ[0] if differ else "seed")
    return shown


def _reached(state: FormatState, table: list[Standing]) -> dict[str, str]:
    """How far each player of an elimination event went: champion, final, or the last
    round they played (in which bracket)."""
    nodes = {n.id: n for n in _bracket_nodes(state) or []}
    last_stage = max((n.stage for n in nodes.values() if n.bracket in ("", "winners")),
                     default=1)
    cur = state.current
    last: dict[str, Node] = {}  # each player's last match (pairings are in round order)
    for p in state.pairings:
        for name in (p.player0, p.player1):
            if name is not None and p.id in nodes:
                last[cur(name)] = nodes[p.id]
    fmt = format_named(state.format)
    champion = fmt.champion(state) if isinstance(fmt, BracketFormat) else None
    out = {}
    for s in table:
        node = last.get(s.player)
        if s.player == champion:
            out[s.player] = "champion"
        elif node is None:
            out[s.player] = "-"
        elif node.bracket == "final":
            out[s.player] = "grand final"
        elif node.bracket == "" and node.stage == last_stage:
            out[s.player] = "final"
        else:
            where = {"winners": "winners' ", "losers": "losers' "}.get(node.bracket, "")
            out[s.player] = f"{where}round {node.stage}"
    return out


def standings_text(state: FormatState) -> str:
    """The table, in rank order, aligned in columns (for a code block), then a legend of
    its columns. Points events show the tie-break that decided each tie ("by"); elimination
    events show how far each player went instead of points."""
    fmt: Format = format_named(state.format)
    table = fmt.standings(state)
    elimination = _bracket_nodes(state) is not None
    labels = TIEBREAK_LABELS.get(state.format, ())
    byes = _byes(state)
    bye_wins = state.format == "swiss"  # a Swiss bye is a point, counted as a win
    legend: list[str] = []
    if elimination:
        reached = _reached(state, table)
        rows = [["#", "Player", "Reached", "W-L", ""]]
        for s in table:
            rows.append([str(s.rank), s.player, reached[s.player], f"{s.wins}-{s.losses}",
                         _mark(state, s)])
        right = {0}
        legend.append("Ranked by how far each player went (players out in the same round "
                      "share a rank); W-L: matches won and lost (a bye is neither).")
    else:
        deciders = _deciders(state, table, labels)
        rows = [["#", "Player", "Pts", "W-D-L", *labels, "by", ""]]
        for s, by in zip(table, deciders, strict=True):
            group = [t for t in table if (t.points, *t.tiebreaks[:-1]) ==
                     (s.points, *s.tiebreaks[:-1])]
            ties = [_num(t) for t in s.tiebreaks[: len(labels)]]
            if ties and len(group) < 2:
                ties[-1] = "-"  # head-to-head counts only among players still level
            wins = s.wins + (byes[s.player] if bye_wins else 0)
            record = f"{wins}-{s.draws}-{s.losses}" + ("*" if byes[s.player] else "")
            rows.append([str(s.rank), s.player, _num(s.points), record, *ties, by,
                         _mark(state, s)])
        right = {0, 2, *range(4, 4 + len(labels))}
        bye = ("a bye is 1 point, counted as a win" if bye_wins else
               "a bye is a round sat out, for no points")
        legend.append(f"Pts: win 1, draw 0.5, loss 0. W-D-L: wins, draws, losses; * had a "
                      f"bye ({bye}).")
        legend.extend(f"{label}: {TIEBREAK_NAMES[label]}." for label in labels)
        legend.append("by: what broke a tie on points with the line above (the first "
                      "tie-break that differs, else the better seed).")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    return "\n".join([*(line.rstrip() for line in lines), "", *legend])


def _mark(state: FormatState, s: Standing) -> str:
    return "withdrawn" if s.player in state.withdrawn else ("out" if s.out else "")


@dataclass(frozen=True)
class Match:
    """One node of a bracket as people read it."""

    id: str
    bracket: str
    stage: int
    top: str  # a name, "bye", "nobody", or "winner of W1-2"
    bottom: str
    winner: str | None  # the name that went through, once decided
    note: str  # "walkover", "bye", "playing", "" ...


def _slot_label(source: tuple[str, int | str], value: object) -> str:
    if value is UNKNOWN:
        kind, ref = source
        return f"{kind} of {ref}"
    return "nobody" if value is None else str(value)


def bracket_matches(state: FormatState) -> list[Match]:
    """Every node of an elimination bracket, decided, in play or still to come."""
    nodes = _bracket_nodes(state)
    if nodes is None:
        raise ValueError(f"A {state.format} event has no bracket; show its rounds instead.")
    ev = Evaluation(nodes, state)
    made = {p.id: p for p in state.pairings}
    out = []
    for node in nodes:
        p = made.get(node.id)
        result = state.results.get(node.id)
        if p is not None:
            top = p.player0
            bottom = p.player1 if p.player1 is not None else "bye"
            if result is None:
                winner, note = None, "playing"
            elif p.player1 is None:
                winner, note = p.player0, "bye"
            elif result.winner is None:
                winner, note = None, "both withdrew"
            else:
                winner, note = result.winner, "walkover" if result.walkover else ""
        else:
            a, b = ev.slots[node.id]
            top, bottom = _slot_label(node.a, a), _slot_label(node.b, b)
            if node.a[0] == "seed" and a is None:
                top = "bye"
            if node.b[0] == "seed" and b is None:
                bottom = "bye"
            winner, note = None, ("no match" if node.id in ev.out else "")
        out.append(Match(node.id, node.bracket, node.stage, top, bottom, winner, note))
    return out


def _match_line(m: Match) -> str:
    if m.note == "bye":
        return f"{m.top} (bye)"
    if m.note == "both withdrew":
        return f"{m.top} and {m.bottom} both withdrew"
    if m.note == "no match":
        return "no match (nobody to play)"
    if m.winner is not None:
        loser = m.bottom if m.winner == m.top else m.top
        return f"{m.winner} beat {loser}" + (" (walkover)" if m.note == "walkover" else "")
    return f"{m.top} v {m.bottom}" + (" (playing)" if m.note == "playing" else "")


def bracket_text(state: FormatState) -> str:
    """A text bracket for elimination formats; the rounds' pairings for the others."""
    if _bracket_nodes(state) is None:
        return rounds_text(state)
    lines: list[str] = []
    section = stage = None
    for m in bracket_matches(state):
        if m.bracket != section:
            section, stage = m.bracket, None
            if SECTION_TITLES[m.bracket]:
                lines.append(SECTION_TITLES[m.bracket])
        if m.stage != stage and m.bracket != "final":
            stage = m.stage
            lines.append(f" Round {m.stage}")
        lines.append(f"  {m.id:<6} {_match_line(m)}")
    return "\n".join(lines)


def rounds_text(state: FormatState) -> str:
    """Every round's pairings and results, for round robin and Swiss."""
    lines: list[str] = []
    current = None
    for p in state.pairings:
        if p.round != current:
            current = p.round
            lines.append(f"Round {p.round}")
        result = state.results.get(p.id)
        if p.player1 is None:
            text = f"{p.player0} (bye)"
        elif result is None:
            text = f"{p.player0} v {p.player1} (playing)"
        elif result.winner is None:
            text = (
                f"{p.player0} and {p.player1} both withdrew"
                if result.walkover
                else f"{p.player0} drew with {p.player1}"
            )
        else:
            loser = p.player1 if result.winner == p.player0 else p.player0
            text = f"{result.winner} beat {loser}" + (" (walkover)" if result.walkover else "")
        lines.append(f"  {p.id:<6} {text}")
    return "\n".join(lines) or "No round has been paired yet."


# ---- the picture

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN, TITLE_H = 190, 44, 40, 14, 20, 28
NAME_MAX = 22
COLOURS = {
    "bg": "#ffffff",
    "box": "#f2f4f8",
    "edge": "#8a94a6",
    "text": "#1d2330",
    "winner": "#0b6e2e",
    "muted": "#8a94a6",
    "title": "#1d2330",
}


@dataclass(frozen=True)
class Label:
    x: int
    y: int
    text: str
    colour: str


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    boxes: list[tuple[int, int, int, int]]
    lines: list[tuple[int, int, int, int]]
    labels: list[Label]


def _short(name: str) -> str:
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def bracket_layout(state: FormatState) -> Layout:
    """Where each box, line and name goes: one column per round of each bracket, the
    winners' and losers' brackets one under the other, each match centred on the matches
    that feed it, and the grand final to the right, between the two brackets' finals."""
    matches = bracket_matches(state)
    nodes = {n.id: n for n in _bracket_nodes(state) or []}
    columns = max(n.stage for n in nodes.values())
    boxes, labels = [], []
    lines: list[tuple[int, int, int, int]] = []  # (from x, y, to x, y)
    centre: dict[str, float] = {}
    right: dict[str, int] = {}  # each box's right edge, where its line leaves
    top = MARGIN
    for section in ("", "winners", "losers", "final"):
        group = [m for m in matches if m.bracket == section]
        if not group:
            continue
        if SECTION_TITLES[section] and section != "final":
            labels.append(Label(MARGIN, top, SECTION_TITLES[section], COLOURS["title"]))
            top += TITLE_H
        slot = 0
        for m in group:
            node = nodes[m.id]
            feeders = [
                ref
                for kind, ref in (node.a, node.b)
                if kind == "winner"
                and isinstance(ref, str)
                and ref in centre
                and (nodes[ref].bracket == section or section == "final")
            ]
            if feeders:
                y = sum(centre[f] for f in feeders) / len(feeders)
            else:
                y = top + slot * (BOX_H + GAP_Y) + BOX_H / 2
                slot += 1
            column = columns if section == "final" else node.stage - 1
            x = MARGIN + column * (BOX_W + GAP_X)
            y0 = int(y - BOX_H / 2)
            centre[m.id], right[m.id] = y, x + BOX_W
            boxes.append((x, y0, x + BOX_W, y0 + BOX_H))
            lines.extend((right[f], int(centre[f]), x, int(y)) for f in feeders)
            if section == "final":
                labels.append(Label(x, y0 - TITLE_H + 6, SECTION_TITLES[section], COLOURS["title"]))
            for i, name in enumerate((m.top, m.bottom)):
                won = m.winner is not None and name == m.winner
                muted = name in ("bye", "nobody") or " of " in name
                colour = COLOURS["winner"] if won else COLOURS["muted" if muted else "text"]
                labels.append(Label(x + 8, y0 + 4 + i * (BOX_H // 2), _short(name), colour))
        top = max(b[3] for b in boxes) + 2 * GAP_Y
    width = max(b[2] for b in boxes) + MARGIN
    return Layout(width, top - GAP_Y + MARGIN, boxes, lines, labels)


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", 14)
    except OSError:
        return ImageFont.load_default(size=14)


def bracket_png(state: FormatState) -> bytes:
    """The bracket of an elimination event as a PNG picture."""
    layout = bracket_layout(state)
    image = Image.new("RGB", (layout.width, layout.height), COLOURS["bg"])
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1 in layout.lines:
        mid = (x0 + x1) // 2
        draw.line([(x0, y0), (mid, y0), (mid, y1), (x1, y1)], fill=COLOURS["edge"], width=2)
    for box in layout.boxes:
        draw.rectangle(box, fill=COLOURS["box"], outline=COLOURS["edge"])
        draw.line(
            [(box[0], (box[1] + box[3]) // 2), (box[2], (box[1] + box[3]) // 2)],
            fill=COLOURS["edge"],
        )
    for label in layout.labels:
        draw.text((label.x, label.y), label.text, fill=label.colour, font=_font())
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
