"""What players type in Renounce Fate, read into commands.

The parser reads the text for the decision the seat has pending (or, with none, the current
phase's, so that `check` can say it is not their turn):

- starter (advantage holder, round 1): "me" / "I start" / "opponent" / "you start"
- bets: "call" (or "call 5" when 5 is owed: another amount is refused), "check" (a call of 0,
  only when nothing is owed), "raise 4" (4 on top of the call), "fold", "all in" /
  "raise max" (the largest raise allowed)
- renounce: the card and its set, in any of these forms, case and spacing tolerant:
  "renounce Y3 set 2", "Y3 2", "🟨3 in set 2", "yellow 3 from set 2", "set 2 Y3", "Y3 s2"

Cards are read as "Y3", "y3", "yellow 3", "3 yellow", "🟨3" (also 🟡3; red: R, red, 🟥, 🔴).
The parser only reads; whether the move is allowed (the card is in that set, the set is open,
the raise fits the caps) is `check`'s job, which says exactly what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from games.core import betting, parsing
from games.core.contract import MATCH_OVER, Command, ParseError
from games.renounce_fate import rules
from games.renounce_fate.cards import STYLE
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.state import Phase, RenounceFateState

STARTER_USAGE = "Type 'me' to start round 1 yourself, or 'opponent' to let your opponent start."
BET_USAGE = "Type 'call', 'raise N' (N chips on top of the call) or 'fold'."
RENOUNCE_USAGE = ("Name the fate card and its set: 'renounce Y3 set 2' (also 'Y3 2' or "
                  "'🟨3 in set 2').")

_BET_SYNONYMS = {
    "call": ["c", "match", "see", "calls", "i call"],
    "check": ["checks", "i check"],  # a call of 0: only when nothing is owed
    "raise": ["r", "bet", "raise by", "raises", "up", "re-raise", "reraise", "i raise"],
    "fold": ["f", "give up", "surrender", "folds", "i fold"],
    "allin": ["all in", "all-in", "shove", "raise max", "max", "raise all"],
}
#: What starts a move typed in the game room (anything else there is chat). Renouncing is
#: private, but its word is a move too, so that typing it in the room is caught and refused.
_STARTER_WORDS = ("me", "i", "myself", "i start", "me first", "opponent", "you", "them",
                  "other", "you start", "opponent starts", "you first", "my opponent")
MOVE_WORDS = parsing.MoveWords(
    lead=(*(w for key, words in _BET_SYNONYMS.items() for w in (key, *words)), "renounce"),
    whole=_STARTER_WORDS)
#: The words of each decision (house ruling: a word of another decision is refused; "i"
#: alone is left out: "i renounce ..." and "i call" start with it too).
DECISIONS = parsing.DecisionWords(kinds={
    "choose_starter": tuple(w for w in _STARTER_WORDS if w != "i"),
    # (not the one-letter "r", "c", "f": a card is "r 4" or "R4")
    "bet": tuple(w for key, words in _BET_SYNONYMS.items() for w in (key, *words) if len(w) > 1),
    "renounce": ("renounce", "renounces", "burn"),
})
_RENOUNCE_NOISE = {"renounce", "renounces", "i", "discard", "burn", "pick", "choose", "the",
                   "card", "from", "in", "of", "set", "group", "s", "no", "number", "and"}
_SET_RE = re.compile(r"(?:\bset|\bgroup|\bs|#|\bno)\s*[-_:]?\s*(\d+)\b")


def _fold(text: str) -> str:
    return text.replace("\ufe0f", "").lower()


def parse_starter(seat: int, text: str) -> Command:
    norm = parsing.normalize(text)
    me = {"me", "i", "myself", "i start", "me first", "i go first", "i will start", "self"}
    other = {"opponent", "you", "them", "other", "they", "opponent starts", "you start",
             "they start", "you first", "opponent first", "the opponent", "my opponent"}
    if norm in me:
        return ChooseStarter(starter=seat)
    if norm in other:
        return ChooseStarter(starter=1 - seat)
    raise ParseError(STARTER_USAGE)


def parse_bet(state: RenounceFateState, seat: int, text: str) -> Command:
    action, amount = betting.read_bet(text, _BET_SYNONYMS, state.betting, state.chips,
                                      rules.limits(state.settings), seat, BET_USAGE)
    return Bet(action=action, amount=amount)


def parse_renounce(text: str) -> Command:
    folded = _fold(text)
    named = _SET_RE.findall(folded)
    if len(named) > 1:
        raise ParseError(f"Name one set. {RENOUNCE_USAGE}")
    body = _SET_RE.sub(" ", folded)  # "set 2" first, so "set 2 yellow 3" is not read as Y2
    try:
        cards = STYLE.read_cards(body)
    except ValueError as exc:
        raise ParseError(f"{exc} Cards are red (R) or yellow (Y) 1 to 5. {RENOUNCE_USAGE}") from exc
    if len(cards) != 1:
        if not cards:
            raise ParseError(RENOUNCE_USAGE)
        raise ParseError(f"Name exactly one card (you named {len(cards)}). {RENOUNCE_USAGE}")
    rest = STYLE.without_cards(body)
    loose = parsing.integers(rest)
    leftover = [w for w in parsing.normalize(rest).split()
                if w not in _RENOUNCE_NOISE and not w.isdigit()]
    if leftover:
        raise ParseError(f"I could not read '{' '.join(leftover)}'. {RENOUNCE_USAGE}")
    nums = [parsing.number(n) for n in named] + loose
    if not nums:
        raise ParseError(f"Name the set too (1, 2 or 3): e.g. 'renounce {cards[0]} set 2'.")
    if len(nums) > 1:
        raise ParseError(f"Name one set. {RENOUNCE_USAGE}")
    return Renounce(set_no=nums[0], card=cards[0])


_PHASE_KIND = {Phase.STARTER: "choose_starter", Phase.BETTING: "bet", Phase.RENOUNCE: "renounce"}
_USAGE = {"choose_starter": STARTER_USAGE, "bet": BET_USAGE, "renounce": RENOUNCE_USAGE}


def parse(mine: Collection[str], state: RenounceFateState, seat: int, text: str) -> Command:
    """Read `text` for the decision `seat` has pending (`mine`: its pending kinds)."""
    if state.phase == Phase.OVER:
        raise ParseError(MATCH_OVER)
    text = parsing.read_move(text, lambda: usage(mine, state))
    kind = next(iter(mine), None) or _PHASE_KIND.get(state.phase)
    norm = parsing.normalize(text)
    if norm in {"help", "", "usage", "commands", "?"}:
        raise ParseError(usage(mine, state))
    if kind is not None:
        DECISIONS.refuse_other(text, [kind], usage(mine, state))
    if kind == "choose_starter":
        return parse_starter(seat, text)
    if kind == "bet":
        return parse_bet(state, seat, text)
    if kind == "renounce":
        return parse_renounce(text)
    raise ParseError("There is nothing to decide right now.")


def usage(mine: Collection[str], state: RenounceFateState) -> str:
    """What a seat with the pending decision kinds `mine` could type now."""
    if not mine:
        if state.phase == Phase.OVER:
            return MATCH_OVER
        return "Nothing to decide for you right now; wait for your opponent."
    return _USAGE[next(iter(mine))]
