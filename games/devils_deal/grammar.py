"""What players type in Devil's Deal, read into commands.

The parser knows which decision the seat has pending and reads the text for that decision:

- starter (advantage holder, round 1): "me" / "I start" / "opponent" / "you start"
- refill offer: "yes" / "no" (also "refill", "y", "n", "pass")
- division: piles one per line or separated by `|`, `/` or `;`, the set-aside pile marked
  with "aside" or "unused" (`aside: G2 B5 R7`, `G2 B5 R7 (set aside)`, `unused: G2 B5 R7`,
  `G2 B5 R7 (unused)`), discards after "discard" (`discard B3 G1`); next to a pile marked
  "aside", an "unused: G1" line lists leftover cards (cards in no pile are set aside anyway);
  "done"/"lock" alone locks in the last valid division (or adds to a division to lock it
  at once); "nothing" takes nothing (every card set aside) and is final at once
- take: "take G2", "take G2 discard B3", "G2", "nothing"
- private cards: "R7 B3" (R7 revealed first), "R7 then B3", "second B3 first R7"
- bets: "call", "raise 3" (3 on top of the call), "fold", "all in" / "raise max"

Cards are read as "R7", "r7", "red 7", "7 red", "🟥7" (also 🔴7). The parser only reads;
whether the move is allowed (cards offered, sums equal, raise caps) is `check`'s job, which
says exactly what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from games.core import betting, parsing
from games.core.contract import MATCH_OVER, Command, ParseError
from games.devils_deal import rules
from games.devils_deal.cards import number
from games.devils_deal.commands import (
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.state import DevilsDealState, Phase

_SUIT_WORDS = {
    "red": "R", "r": "R", "🟥": "R", "🔴": "R",
    "green": "G", "g": "G", "🟩": "G", "🟢": "G",
    "blue": "B", "b": "B", "🟦": "B", "🔵": "B",
}
_SUIT_RE = "|".join(re.escape(w) for w in sorted(_SUIT_WORDS, key=len, reverse=True))
_CARD_RE = re.compile(
    rf"(?<![a-z0-9])(?:(?P<s1>{_SUIT_RE})\s*[-_:]?\s*(?P<n1>\d+)"
    rf"|(?P<n2>\d+)\s*[-_:]?\s*(?P<s2>{_SUIT_RE}))(?![a-z0-9])"
)

NOTHING_WORDS = {"nothing", "none", "take nothing", "pass", "skip", "no", "n", "nope",
                 "no thanks", "all aside", "aside all", "everything aside", "set aside all",
                 "set everything aside", "no card", "no cards", "decline"}
LOCK_WORDS = {"done", "lock", "lock in", "lock it", "locked", "final", "confirm", "submit",
              "finish", "finished", "ready", "go"}
_DIVISION_NOISE = {"pile", "piles", "aside", "set", "setaside", "set-aside", "unused", "keep",
                   "take", "and", "lock", "done", "final", "in", "leftover", "leftovers",
                   "rest", "extra", "cards", "card", "of"}
_BET_SYNONYMS = {
    "call": ["c", "match", "see", "calls", "i call"],
    "raise": ["r", "bet", "raise by", "raises", "up", "re-raise", "reraise", "i raise"],
    "fold": ["f", "give up", "surrender", "folds", "i fold"],
    "allin": ["all in", "all-in", "shove", "raise max", "max", "raise all"],
}


#: The words only one decision has (house ruling: a word of another decision is refused).
DECISIONS = parsing.DecisionWords(kinds={
    "choose_starter": ("i start", "you start", "me first", "you first", "opponent starts",
                       "i go first", "i will start"),
    "refill_offer": ("refill", "no refill", "dont refill", "don't refill"),
    # (not the one-letter "r", "c", "f": a card is "r 4" or "R4")
    "bet": tuple(w for key, words in _BET_SYNONYMS.items() for w in (key, *words) if len(w) > 1),
})


def _fold(text: str) -> str:
    return text.replace("\ufe0f", "").lower()


def read_cards(text: str) -> tuple[list[str], str]:
    """The cards named in `text` in order, and the text left over once they are removed.

    Raises ParseError for a card that does not exist ("R0", "G12").
    """
    folded = _fold(text)
    cards: list[str] = []
    bad: list[str] = []
    for m in _CARD_RE.finditer(folded):
        letter = _SUIT_WORDS[m.group("s1") or m.group("s2")]
        num = parsing.number(m.group("n1") or m.group("n2"))
        if 1 <= num <= 9:
            cards.append(f"{letter}{num}")
        else:
            bad.append(f"{letter}{num}")
    if bad:
        raise ParseError(f"There is no card {', '.join(bad)}: cards are R, G or B with a number "
                         f"from 1 to 9.")
    rest = _CARD_RE.sub(" ", folded)
    return cards, rest


def _leftover(rest: str, allowed: set[str]) -> list[str]:
    rest = re.sub(r"(=|sum)\s*\d+", " ", rest)
    words = parsing.normalize(rest.replace("-", " ").replace("•", " ")).split()
    return [w for w in words if w not in allowed]


def _unreadable(words: list[str], usage_line: str) -> ParseError:
    return ParseError(f"I could not read '{' '.join(words)}'. {usage_line}")


# --- per decision ------------------------------------------------------------------------
STARTER_USAGE = "Type 'me' to start round 1 yourself, or 'opponent' to let your opponent start."
REFILL_USAGE = "Type 'yes' to refill or 'no' to pass."
DIVISION_USAGE = ("Write piles of equal sum, one per line or separated by |, mark the set-aside "
                  "pile and list discards: 'R2 B3 R3 G6 | G5 B9 | aside: G2 B5 R7 | discard B3'; "
                  "'done' locks in your last division; 'nothing' takes nothing.")
TAKE_USAGE = "Type 'take G2' (add 'discard B3' if your pool is full) or 'nothing'."
PRIVATE_USAGE = "Type your two private cards, the one revealed first first: e.g. 'R7 B3'."
BET_USAGE = "Type 'call', 'raise N' (N on top of the call) or 'fold'."

_USAGE = {
    "choose_starter": STARTER_USAGE, "refill_offer": REFILL_USAGE, "division": DIVISION_USAGE,
    "take": TAKE_USAGE, "private_cards": PRIVATE_USAGE, "bet": BET_USAGE,
}


def parse_starter(seat: int, text: str) -> Command:
    norm = parsing.normalize(text)
    me = {"me", "i", "myself", "i start", "me first", "i go first", "i will start", "self", "mine"}
    other = {"opponent", "you", "them", "other", "they", "opponent starts", "you start",
             "they start", "them first", "you first", "opponent first", "the opponent",
             "my opponent", "other player"}
    if norm in me:
        return ChooseStarter(starter=seat)
    if norm in other:
        return ChooseStarter(starter=1 - seat)
    raise ParseError(STARTER_USAGE)


def parse_refill(text: str) -> Command:
    norm = parsing.normalize(text)
    if norm in {"no refill", "dont refill", "don t refill", "no thanks"}:
        return RefillAnswer(refill=False)
    answer = parsing.yes_no(text)
    if answer is None and norm in {"yes refill", "refill please", "y please"}:
        answer = True
    if answer is None:
        raise ParseError(REFILL_USAGE)
    return RefillAnswer(refill=answer)


def parse_division(text: str) -> Command:
    whole = parsing.normalize(text)
    if whole in LOCK_WORDS:
        return LockDivision()
    if whole in NOTHING_WORDS:
        return Division(lock=True)  # taking nothing is final at once
    lock = False
    lines: list[tuple[tuple[str, ...], str | None]] = []  # pile lines and their mark
    discards: list[str] = []
    segments = re.split(r"[\n|/;]+", _fold(text))
    for raw in segments:
        seg = re.sub(r"^\s*(?:[-•*]+|\d+\s*[.)])\s*", " ", raw)
        seg = re.sub(r"\bpile\s*\d+\b", " ", seg)
        words = set(parsing.normalize(seg).split())
        if words & {"lock", "done", "final"}:
            lock = True
        if not seg.strip() or (words and words <= (LOCK_WORDS | {"in", "it"})):
            continue
        dm = re.search(r"\b(discards?|drop)\b", seg)
        head, tail = (seg[: dm.start()], seg[dm.end():]) if dm else (seg, "")
        pile_cards, rest = read_cards(head)
        extra = _leftover(rest, _DIVISION_NOISE)
        if extra:
            raise _unreadable(extra, DIVISION_USAGE)
        if dm:
            more, rest2 = read_cards(tail)
            extra = _leftover(rest2, _DIVISION_NOISE)
            if extra:
                raise _unreadable(extra, DIVISION_USAGE)
            discards.extend(more)
        if "leftover" in words or "leftovers" in words or not pile_cards:
            continue  # cards in no pile are implicit
        mark = "aside" if re.search(r"aside", seg) else "unused" if "unused" in words else None
        lines.append((tuple(pile_cards), mark))
    piles, aside = _mark_aside(lines)
    if not piles and not discards:
        if lock:
            return LockDivision()
        raise ParseError(DIVISION_USAGE)
    return Division(piles=tuple(piles), aside=aside, discards=tuple(discards), lock=lock)


def _mark_aside(lines: list[tuple[tuple[str, ...], str | None]]
                ) -> tuple[list[tuple[str, ...]], int | None]:
    """The piles and which one is set aside. A line marked "aside" ("aside:", "(set aside)")
    or "unused" ("unused:", "(unused)") is the set-aside pile (house ruling). When a line
    marked "aside" exists, "unused" lines list leftover cards instead (the seed's own example
    writes both "G2, B5, R7 (set aside)" and "Unused: G1"); so does a lone "unused" line whose
    sum differs from the other piles' common sum (it cannot be a pile)."""
    marked = [i for i, (_, mark) in enumerate(lines) if mark == "aside"]
    unused = [i for i, (_, mark) in enumerate(lines) if mark == "unused"]
    if len(marked) > 1:
        raise ParseError("Mark only one pile as set aside.")
    if not marked and len(unused) == 1 and not _leftover_line(lines, unused[0]):
        marked = unused
    elif not marked and len(unused) > 1:
        sums = [sum(number(c) for c in lines[i][0]) for i in unused]
        others = {sum(number(c) for c in cards) for j, (cards, _) in enumerate(lines)
                  if j not in unused}
        fitting = [i for i, total in zip(unused, sums, strict=True) if total in others]
        if len(fitting) != 1 or len(others) != 1:
            raise ParseError("Mark only one pile as set aside (the other cards in no pile are "
                             "set aside anyway).")
        marked = fitting
    piles: list[tuple[str, ...]] = []
    aside: int | None = None
    for i, (cards, mark) in enumerate(lines):
        if i in marked:
            aside = len(piles)
        elif mark == "unused":
            continue  # leftover cards: in no pile
        piles.append(cards)
    return piles, aside


def _leftover_line(lines: list[tuple[tuple[str, ...], str | None]], index: int) -> bool:
    """Whether the only "unused" line lists leftovers: the other piles share one sum and this
    line's sum differs from it."""
    others = {sum(number(c) for c in cards) for j, (cards, _) in enumerate(lines) if j != index}
    return len(others) == 1 and sum(number(c) for c in lines[index][0]) not in others


def parse_take(text: str) -> Command:
    norm = parsing.normalize(text)
    if norm in NOTHING_WORDS or norm in {"take none", "take nothing", "no take"}:
        return Take()
    folded = _fold(text)
    m = re.search(r"\b(discards?|drop)\b", folded)
    head, tail = (folded[: m.start()], folded[m.end():]) if m else (folded, "")
    cards, rest = read_cards(head)
    extra = _leftover(rest, {"take", "i", "the", "card", "and", "please", "pick", "grab"})
    if extra:
        raise _unreadable(extra, TAKE_USAGE)
    if len(cards) != 1:
        if not cards:
            raise ParseError(TAKE_USAGE)
        raise ParseError("Take exactly one card; to discard, write e.g. "
                         f"'take {cards[0]} discard {cards[1]}'.")
    discard: str | None = None
    if m:
        dcards, rest2 = read_cards(tail)
        extra = _leftover(rest2, {"and", "the", "card"})
        if extra:
            raise _unreadable(extra, TAKE_USAGE)
        if len(dcards) != 1:
            raise ParseError("Discard exactly one card, e.g. 'take G2 discard B3'.")
        discard = dcards[0]
    return Take(card=cards[0], discard=discard)


def parse_private(text: str) -> Command:
    folded = _fold(text)
    found = [(m.start(), m) for m in _CARD_RE.finditer(folded)]
    cards, rest = read_cards(folded)
    extra = _leftover(rest, {"first", "second", "1st", "2nd", "then", "and", "private", "cards",
                             "card", "reveal", "play", "choose", "pick", "my", "last", "next",
                             "is", "are", "revealed", "i"})
    if extra:
        raise _unreadable(extra, PRIVATE_USAGE)
    if len(cards) != 2:
        raise ParseError(f"Name exactly two cards (you named {len(cards)}). {PRIVATE_USAGE}")
    markers = [(m.start(), 0 if m.group(1) in ("first", "1st") else 1)
               for m in re.finditer(r"\b(first|1st|second|2nd|last)\b", folded)]
    tags: list[int | None] = []
    for pos, _ in found:
        before = [tag for mpos, tag in markers if mpos < pos]
        tags.append(before[-1] if before else None)
    if tags == [1, 0] or tags == [None, 0] or tags == [1, None]:
        cards.reverse()
    return PrivateCards(first=cards[0], second=cards[1])


def parse_bet(state: DevilsDealState, seat: int, text: str) -> Command:
    action, amount = betting.read_bet(text, _BET_SYNONYMS, state.betting, state.chips,
                                      rules.LIMITS, seat, BET_USAGE)
    return Bet(action=action, amount=amount)


_PHASE_KIND = {
    Phase.STARTER: "choose_starter", Phase.REFILL_OFFER: "refill_offer",
    Phase.DIVISION: "division", Phase.TAKE: "take", Phase.PRIVATE: "private_cards",
    Phase.BETTING: "bet",
}


def parse(mine: Collection[str], state: DevilsDealState, seat: int, text: str) -> Command:
    """Read `text` for the decision `seat` has pending (`mine`: its pending kinds; with none,
    the current one, so that `check` can say it is not their turn)."""
    if state.phase == Phase.OVER:
        raise ParseError(MATCH_OVER)
    kind = next(iter(mine), None) or _PHASE_KIND.get(state.phase)
    text = parsing.read_move(text, lambda: usage(mine, state))
    norm = parsing.normalize(text)
    if norm in {"help", "", "usage", "commands"}:
        raise ParseError(usage(mine, state))
    if kind is not None:
        DECISIONS.refuse_other(text, [kind], usage(mine, state))
    if kind == "choose_starter":
        return parse_starter(seat, text)
    if kind == "refill_offer":
        return parse_refill(text)
    if kind == "division":
        return parse_division(text)
    if kind == "take":
        return parse_take(text)
    if kind == "private_cards":
        return parse_private(text)
    if kind == "bet":
        return parse_bet(state, seat, text)
    raise ParseError("There is nothing to decide right now.")


def usage(mine: Collection[str], state: DevilsDealState) -> str:
    """What a seat with the pending decision kinds `mine` could type now."""
    if not mine:
        if state.phase == Phase.OVER:
            return MATCH_OVER
        return "Nothing to decide for you right now; wait for your opponent."
    return _USAGE[next(iter(mine))]


#: A move typed in the game room starts with a card ("G2", "2 green", "🟩2"), a number, a
#: keyword of a decision (take, call, raise, fold, lock...) or a pile line ("- R7 B3"), or is
#: one of the short answers (yes, no, me, you...); anything else there is chat.
MOVE_WORDS = parsing.MoveWords(
    lead=(*_SUIT_WORDS, *parsing.DIGITS, "-", "•", "take", "discard", "aside", "set aside",
          "pile", "piles", "lock", "done", "refill", "no refill", "dont refill", "don't refill",
          "nothing", "take nothing", "no thanks", "no card", "everything aside", "all aside",
          "set everything aside", "i start", "i go first", "i will start", "me first",
          "you start", "you first", "opponent", "the opponent", "my opponent", "they start",
          "them first", "other player", "call", "i call", "raise", "i raise", "re-raise",
          "reraise", "bet", "fold", "i fold", "all in", "all-in", "allin", "shove",
          "give up", "surrender", "pass", "skip", "decline", "confirm", "submit", "final"),
    whole=("yes", "y", "no", "n", "nope", "none", "me", "i", "myself", "mine", "self", "you",
           "them", "other", "they", "c", "f", "max", "up", "see", "match", "go", "ready",
           "finish", "finished", "locked", "first", "second"))
