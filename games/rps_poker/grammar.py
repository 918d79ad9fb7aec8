"""What players type: `keep R3` / `pick 2` in the draft, `play ✂️7` / `#1` in a game.

A bare card ("r3", "rock 3", "🪨3", "3 rock") or a position ("#2", "second", "2nd",
"card 2", "left"/"right" for the two draft cards) works in context. A bare number is the
card of that number when exactly one card offered has it ("keep 5" holding 📄2 and 📄5),
else the position; where it could be either of two different cards it is refused, naming
both. A keyword of the other
phase is refused ("play R3" while drafting), never read as this phase's choice; neutral
words (pick, take, choose, use) work in both.
"""

from __future__ import annotations

import re

from games.core import Command, ParseError
from games.core.parsing import DIGITS, DecisionWords, MoveWords, number, read_move
from games.rps_poker.cards import CARDS, SYMBOL_WORDS, find_cards, render
from games.rps_poker.commands import Keep, Play
from games.rps_poker.flow import options
from games.rps_poker.state import Phase, RpsState

KEYWORDS = ("keep", "keeps", "pick", "take", "choose", "select", "k", "play", "plays", "throw",
            "use", "put", "i keep", "i play", "i pick", "i choose", "i take")
ORDINALS = {"first": 0, "second": 1, "third": 2, "1st": 0, "2nd": 1, "3rd": 2,
            "left": 0, "right": 1, "top": 0, "last": -1}
#: The words only one phase has (house ruling: a word of the other phase is refused).
DECISIONS = DecisionWords(kinds={"draft_pick": ("keep", "keeps", "k", "i keep"),
                                 "play": ("play", "plays", "throw", "i play")})
_PUNCT = re.compile(r"[!?.,;:'\"`*_~()\[\]{}<>|/\\]+")
_POSITION = re.compile(r"^(?:#|no |nr |number |card |position |slot )?#?\s*([0-9]+)(?:st|nd|rd|th)?$")


def _normal(text: str) -> str:
    text = _PUNCT.sub(" ", text.replace("\ufe0f", "").lower())
    return " ".join(text.split())


def _strip_keyword(norm: str) -> str:
    for word in sorted(KEYWORDS, key=len, reverse=True):
        if norm == word:
            return ""
        if norm.startswith(word + " "):
            return norm[len(word) + 1:]
    return norm


#: Every kind of move, with examples (the console's /help).
MOVE_HELP = (
    "Draft: keep and a card, e.g. keep R3 (or keep 🪨3, keep rock 3), its number alone where "
    "only one card offered has it (keep 3), or its position (#1, #2, left, right).",
    "Games: play and a card, e.g. play S7 (or play ✂️7, play scissors 7), its number alone "
    "where only one card in your hand has it (play 7), or its position in your hand (#3, "
    "last).",
)


def usage(state: RpsState, seat: int) -> str:
    if state.phase == Phase.OVER:
        return "The match is over; there is nothing to choose."
    opts = options(state, seat)
    verb = "keep" if state.phase == Phase.DRAFT else "play"
    last = len(opts)
    where = "1" if last == 1 else f"1 to {last}"
    return (f"Type {verb} and a card ({', '.join(f'{verb} {render(c)} or {c}' for c in opts)}),"
            f" its number alone where only one card has it, or its position #{where}.")


def parse(state: RpsState, seat: int, text: str) -> Command:
    if state.phase == Phase.OVER:
        raise ParseError("The match is over; there is nothing to choose.")
    make = Keep if state.phase == Phase.DRAFT else Play
    text = read_move(text, lambda: usage(state, seat))
    DECISIONS.refuse_other(text, ["draft_pick" if state.phase == Phase.DRAFT else "play"],
                           usage(state, seat))
    rest = _strip_keyword(_normal(text))
    if not rest:
        raise ParseError(usage(state, seat))
    cards = find_cards(rest)
    if len(cards) > 1:
        raise ParseError("Name one card only. " + usage(state, seat))
    if len(cards) == 1:
        card = cards[0]
        if card not in CARDS:
            raise ParseError(f"There is no card {card}: cards are R, P or S with a number "
                             f"0 to 9. " + usage(state, seat))
        return make(card=card)
    opts = options(state, seat)
    index: int | None = None
    written: str | None = None
    if rest in ORDINALS:
        if rest not in ("left", "right") or len(opts) == 2:
            index, written = ORDINALS[rest] % max(len(opts), 1), rest
            if ORDINALS[rest] >= len(opts):
                index = len(opts)  # out of range: reported below
    else:
        m = _POSITION.match(rest)
        if m:
            index, written = number(m.group(1)) - 1, m.group(1)
            if rest.isdigit():  # a bare number: the card of that number, if only one has it
                by_number = [c for c in opts if c[1:] == str(number(rest))]
                at = opts[index] if 0 <= index < len(opts) else None
                if len(by_number) == 1 and at not in (None, by_number[0]):
                    raise ParseError(
                        f"{rest} could be {render(by_number[0])} (its number) or "
                        f"{render(at)} (position {rest}): type {render(by_number[0])} or "
                        f"#{rest}.")
                if len(by_number) == 1:
                    return make(card=by_number[0])
    if index is not None and not 0 <= index < len(opts):
        raise ParseError(f"There is no position {written}: you have {len(opts)} "
                         f"card{'s' if len(opts) != 1 else ''}. " + usage(state, seat))
    if index is None:
        raise ParseError(usage(state, seat))
    return make(card=opts[index])


#: A move typed in the game room starts with a keyword, a card ("r3", "rock 3", "🪨3", "3
#: rock") or a position ("2", "#2", "card 2"); anything else there is chat. (Every RPS Poker
#: decision is private, so such a move is refused there and deleted.)
MOVE_WORDS = MoveWords(
    lead=(*KEYWORDS, *SYMBOL_WORDS, *DIGITS, "#", "card", "position", "slot", "number",
          "first", "second", "third", "1st", "2nd", "3rd"),
    whole=("left", "right", "top", "last"))
