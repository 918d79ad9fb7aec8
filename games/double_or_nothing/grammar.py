"""What players type in Double or Nothing, read into commands.

The parser reads the text for the decision the seat has pending (or, if none, the current
one, so that `check` can say it is not their turn):

- first player (advantage holder, bout 1): "me" / "I start" / "opponent" / "you start"
- move (game room): "play 5 5 5", "play 3,2,1", "play 5-J-7", "play J 7", "5 6 7" (cards in
  hand order, jokers as J or joker); "draw 6" / "take 6"; "joker" / "draw joker";
  "double" (there is no pass to choose: the bot passes for a player who cannot move)
- placement (table channel): "at 3", "3", "position 3", "front" / "start", "end" / "last"
- which identical set (table channel, asked only when the copies leave different hands):
  "play 4..6", "4..6", "4-6", "#4", "4"
- answer to a double: "accept" / "take" / "yes", "forfeit" / "drop" / "no" (nothing else:
  "take 6" is the draw command, refused while a double is answered)

A move is read only as a word of the decision pending now (`DECISIONS`): "draw 4" while the
bot waits for a position is refused, never position 4. Numbers keep their sign ("draw -6" is
no card). Positions are 1-based as shown in the hand. The parser only reads; whether a move
is allowed is `check`'s job, which says exactly what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from games.core import parsing
from games.core.contract import MATCH_OVER, Command, ParseError
from games.double_or_nothing import flow
from games.double_or_nothing.commands import (
    Answer,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Pass,
    Place,
    Play,
    PlayAt,
)
from games.double_or_nothing.rules import STYLE
from games.double_or_nothing.state import DoubleOrNothingState, Phase

STARTER_USAGE = "Type 'me' to start bout 1 yourself, or 'opponent' to let your opponent start."
MOVE_USAGE = ("Type 'play' and the cards in hand order (e.g. 'play 5 6 7', jokers as J), "
              "'draw N' to take a card from the table set, 'joker' to draw one of your jokers, "
              "or 'double' to propose a double.")
PLACE_USAGE = "Type 'at N' to put the card at position N of your hand (1 = front)."
POSITION_USAGE = "Type which cards you play by their positions, e.g. 'play 4..6'."
ANSWER_USAGE = "Type 'accept' (the stake doubles and it is your move) or 'forfeit' the bout."

_USAGE = {"choose_starter": STARTER_USAGE, "move": MOVE_USAGE, "place": PLACE_USAGE,
          "position": POSITION_USAGE, "double_answer": ANSWER_USAGE}

_MOVE_WORDS = {
    "play": ["p", "plays", "i play", "put", "lay", "set"],
    "draw": ["d", "take", "draws", "i draw", "pick", "pick up", "draw card"],
    "joker": ["draw joker", "draw a joker", "draw j", "take joker", "take a joker", "jk",
              "use joker", "my joker", "joker please"],
    "double": ["propose double", "propose a double", "double it", "redouble", "doubling die",
               "use doubling die", "use the doubling die", "dbl", "x2"],
    "pass": ["i pass", "skip"],  # refused by `check`, which says the pass is automatic
}
_ANSWER_WORDS = {
    "accept": ["a", "take", "yes", "y", "ok", "okay", "accepted", "i accept", "take it", "deal"],
    "forfeit": ["f", "drop", "no", "n", "decline", "resign", "fold", "give up", "pass",
                "i forfeit", "refuse"],
}
_SHORT_ANSWERS = ("yes", "y", "no", "n", "ok", "okay", "a", "f")
#: What starts a move typed in the game room (anything else there is chat).
MOVE_WORDS = parsing.MoveWords(
    lead=tuple(w for table in (_MOVE_WORDS, _ANSWER_WORDS) for key, words in table.items()
               for w in (key, *words) if w not in _SHORT_ANSWERS),
    whole=(*_SHORT_ANSWERS, "me", "i", "myself", "i start", "me first", "opponent", "you",
           "them", "other", "you start", "opponent starts", "you first", "my opponent"))
#: ("at N" is left out: typed as a move, `parse_move` says positions are private.)
_PLACE_WORDS = ("front", "start", "first", "beginning", "left", "end", "last", "back", "right",
                "position", "pos", "place", "put it", "slot")
_POSITION_WORDS = ("play", "#", "position", "pos", *parsing.DIGITS)
#: The words of each decision (house ruling: a word of another decision is refused).
DECISIONS = parsing.DecisionWords(kinds={
    "move": (*(w for key, words in _MOVE_WORDS.items() for w in (key, *words)), *parsing.DIGITS,
             "j", "jk", "jokers", "🃏"),
    "double_answer": tuple(w for key, words in _ANSWER_WORDS.items() for w in (key, *words)),
    "place": (*_PLACE_WORDS, *parsing.DIGITS),
    "position": _POSITION_WORDS,
    "choose_starter": ("me", "i", "myself", "i start", "me first", "opponent", "you", "them",
                       "other", "you start", "opponent starts", "you first", "my opponent"),
})
_VERB = re.compile(r"^\s*(?:i\s+)?(?:plays?|p|put|lay|set|draws?|d|take|pick(?:\s+up)?)"
                   r"(?:\s+card)?(?![a-z])")
_RANGE = re.compile(r"(\d+)\s*(?:\.\.+|…|-|–|to|through)\s*(\d+)")


def parse_starter(seat: int, text: str) -> Command:
    norm = parsing.normalize(text)
    me = {"me", "i", "myself", "i start", "me first", "i go first", "self", "i will start"}
    other = {"opponent", "you", "them", "other", "they", "you start", "they start", "opponent "
             "starts", "you first", "opponent first", "the opponent", "my opponent"}
    if norm in me:
        return ChooseStarter(starter=seat)
    if norm in other:
        return ChooseStarter(starter=1 - seat)
    raise ParseError(STARTER_USAGE)


def read_cards(text: str) -> list[str]:
    """The cards named in `text` ("5-J-7", "3,2,1", "10 10", "joker 7") in order."""
    cards = STYLE.find_cards(text)
    bad = [c for c in cards if c != "J" and not 1 <= parsing.number(c) <= 10]
    if bad:
        raise ParseError(f"There is no card {', '.join(bad)}: cards are 1 to 10 and J (joker).")
    return cards


def parse_move(text: str) -> Command:
    norm = parsing.normalize(text)
    if ".." in text or "…" in text or re.search(r"\bat\s*\d", norm):
        raise ParseError("Positions in your hand are private: in the game room name the cards "
                         "(e.g. 'play 5 6 7'); the bot asks in your table channel where a drawn "
                         "card goes or which of two identical sets you play.")
    word = parsing.keyword(text, _MOVE_WORDS)
    if word == "joker":
        return DrawJoker()
    if word == "double":
        return Double()
    if word == "pass":
        return Pass()
    if word == "draw":
        rest = _VERB.sub(" ", text.lower(), count=1)
        if re.search(r"\b(joker|j)\b", rest.lower()):
            return DrawJoker()
        nums = parsing.integers(rest)
        if len(nums) != 1:
            raise ParseError("Name the one card you draw from the table: e.g. 'draw 6'.")
        if not 1 <= nums[0] <= 10:
            raise ParseError(f"There is no card {nums[0]}: cards are 1 to 10.")
        return Draw(number=nums[0])
    body = _VERB.sub(" ", text.lower(), count=1) if word == "play" else text
    cards = read_cards(body)
    leftover = re.sub(r"\d+|\bjokers?\b|\bj\b|\bjk\b|🃏|[-,;/+&|]|\band\b|\bthen\b|\bcards?\b",
                      " ", body.lower().replace("\ufe0f", ""))
    if parsing.normalize(leftover) or not cards:
        if word == "play":
            raise ParseError("Name the cards you play in hand order, e.g. 'play 5 6 7' or "
                             "'play J 7'.")
        raise ParseError(MOVE_USAGE)
    return Play(cards=tuple(cards))


def parse_place(state: DoubleOrNothingState, seat: int, text: str) -> Command:
    norm = parsing.normalize(text)
    if norm in {"front", "start", "first", "at front", "at the front", "at start", "beginning",
                "at the start", "left"}:
        return Place(position=0)
    nums = parsing.integers(text)
    if norm in {"end", "last", "at end", "at the end", "back", "right"}:
        return Place(position=len(state.hands[seat]))
    if len(nums) != 1:
        raise ParseError(PLACE_USAGE)
    words = set(re.sub(r"\d+", " ", norm).split()) - {"at", "position", "pos", "place", "put",
                                                      "it", "slot", "#", "no", "st", "nd",
                                                      "rd", "th", "card", "in", "go", "goes"}
    if words:
        raise ParseError(PLACE_USAGE)
    return Place(position=nums[0] - 1)


def parse_position(state: DoubleOrNothingState, text: str) -> Command:
    parsing.refuse_negative(text, POSITION_USAGE)  # the range reader would drop the sign
    norm = parsing.normalize(text.replace("..", " .. "))
    size = len(state.option_cards)
    extra = set(re.sub(r"[0-9]+", " ", norm).split()) - {"play", "position", "positions", "pos",
                                                          "#", "..", "-", "to", "through", "at"}
    if extra or not re.search(r"[0-9]", norm):
        raise ParseError(POSITION_USAGE)
    m = _RANGE.search(text.lower())
    if m:
        a, b = parsing.number(m.group(1)), parsing.number(m.group(2))
        lo, hi = min(a, b), max(a, b)
        if hi - lo + 1 != size:
            raise ParseError(f"The set is {size} cards: give {size} positions, e.g. "
                             f"'play {lo}..{lo + size - 1}'.")
        return PlayAt(start=lo - 1)
    nums = parsing.integers(norm)
    if len(nums) == 1:
        return PlayAt(start=nums[0] - 1)
    raise ParseError(POSITION_USAGE)


def parse_answer(text: str) -> Command:
    """Only an answer, nothing more: "take" accepts, "take 6" (the draw command) does not."""
    norm = parsing.normalize(text)
    for word, options in _ANSWER_WORDS.items():
        if norm == word or norm in options:
            return Answer(accept=word == "accept")
    raise ParseError(ANSWER_USAGE)


def parse(mine: Collection[str], state: DoubleOrNothingState, seat: int, text: str) -> Command:
    """Read `text` for a decision `seat` has pending (`mine`: its pending kinds; with none,
    the current one, so that `check` can say whose it is)."""
    if state.phase == Phase.OVER:
        raise ParseError(MATCH_OVER)
    text = parsing.read_move(text, lambda: usage(mine, state))
    norm = parsing.normalize(text)
    if norm in {"help", "", "usage", "commands", "?"}:
        raise ParseError(usage(mine, state))
    kinds = sorted(mine, key=lambda k: k == "position") or [flow.KINDS[state.phase]]
    DECISIONS.refuse_other(text, kinds, usage(mine, state))
    kind = DECISIONS.kind_of(text, kinds) if len(kinds) > 1 else kinds[0]
    kind = kind if kind in kinds else kinds[0]
    if kind == "choose_starter":
        return parse_starter(seat, text)
    if kind == "move":
        return parse_move(text)
    if kind == "place":
        return parse_place(state, seat, text)
    if kind == "position":
        return parse_position(state, text)
    return parse_answer(text)


def usage(mine: Collection[str], state: DoubleOrNothingState) -> str:
    """What a seat with the pending decision kinds `mine` could type now."""
    if state.phase == Phase.OVER:
        return MATCH_OVER
    if not mine:
        return "Nothing to decide for you right now; wait for your opponent."
    return " ".join(_USAGE[k] for k in sorted(mine, key=lambda k: k == "position"))
