"""Helpers for the tolerant text-to-command parsers of the games.

Players type moves as chat messages: "Raise 3", "raise3", "  FOLD ", "play #2", "keep r3!".
Each game writes its own grammar; these helpers do the common reading so grammars stay short.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from games.core.contract import ParseError

_PUNCT = re.compile(r"[!?.,;:'\"`*_~()\[\]{}<>]+")


def normalize(text: str) -> str:
    """Lower-case, drop chat punctuation and markdown, fold runs of spaces."""
    text = text.replace("\ufe0f", "").lower()
    text = _PUNCT.sub(" ", text)
    return " ".join(text.split())


def words(text: str) -> list[str]:
    """The words of a normalised message, with letters and digits split ("raise3" -> raise, 3)."""
    spaced = re.sub(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])", " ", normalize(text))
    return spaced.split()


def keyword(text: str, synonyms: Mapping[str, Iterable[str]]) -> str | None:
    """The canonical keyword the message starts with, if any.

    `synonyms` maps a canonical word to the words that mean it, e.g.
    {"fold": ["fold", "f", "give up"]}. Multi-word synonyms are matched as phrases.
    """
    norm = " ".join(words(text))
    best: tuple[int, str] | None = None
    for canonical, options in synonyms.items():
        for option in (canonical, *options):
            matches = norm == option or norm.startswith(option + " ")
            if matches and (best is None or len(option) > best[0]):
                best = (len(option), canonical)
    return best[1] if best else None


#: The longest message a grammar reads: a move is a line or a few (a Devil's Deal division
#: is the longest, under 200 characters). Longer text is refused before any reading, so no
#: grammar ever spends more than a bounded time on one message.
MAX_MOVE_CHARS = 1000
#: The most digits a typed number may have: every number a move takes (chips, positions,
#: seconds, cards) is far smaller. A longer one is refused, never cut or rounded.
MAX_DIGITS = 9
#: A minus sign before a number ("-6", "−6"), but not a dash between two numbers ("5-6").
#: A sign is written against its number and follows the start, a blank or an opening mark:
#: "J-7", "R-3" and a pile line's bullet "- 7 red" are no negatives.
_SIGNED = re.compile(r"(?:(?<![^\s(:=,])(?P<sign>[-\u2212]))?(?<![0-9])(?P<digits>[0-9]+)")
_NEGATIVE = re.compile(r"(?<![^\s(:=,])[-\u2212][0-9]+")
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_DIGITS + 1},}}")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_NUMERIC = ("Nd", "Nl", "No")


def other_script_digit(text: str) -> str | None:
    """The first digit-like character of another script ("٣", "４", "²", "½", "Ⅻ"), if any.

    Every game refuses these the same way (the house ruling: a number in an unusual script
    is never read as another number), so "play ５" and "draw ６" get the same answer."""
    if not _NOT_ASCII.search(text):
        return None
    for ch in text:
        if ord(ch) > 127 and unicodedata.category(ch) in _NUMERIC:
            return ch
    return None


def _squeeze_spaces(text: str) -> str:
    """Every run of blanks as one character: a newline if it held one, else a space (lines
    still separate piles, and no pattern can backtrack over a long run of blanks)."""
    return _BLANKS.sub(lambda m: "\n" if "\n" in m.group() else " ", text)


_BLANKS = re.compile(r"\s+")


def read_move(text: str, usage: Callable[[], str]) -> str:
    """The one entrance of every game's grammar: the message, ready to read, or a refusal.

    Refused before any reading (each refusal ends with `usage()`, what is expected now):
    a message over MAX_MOVE_CHARS characters, a digit of another script, a number of more
    than MAX_DIGITS digits. (Numbers keep their sign: see `integers`, `refuse_negative`.) Runs of blanks are squeezed to one. Everything here is linear in
    the length of the message, and the grammars after it read at most MAX_MOVE_CHARS."""
    odd = other_script_digit(text)
    if odd is not None:
        raise ParseError(f"Type numbers with the digits 0 to 9 ('{odd}' is not read as a "
                         f"number). {usage()}")
    for long in _LONG_NUMBER.finditer(text):
        digits = len(long.group().lstrip("0"))
        if digits > MAX_DIGITS:
            raise ParseError(f"A number of {digits:,} digits is not a move: every number here "
                             f"is small. {usage()}")
    if len(text) > MAX_MOVE_CHARS:
        raise ParseError(f"That message is {len(text):,} characters long; a move is at most "
                         f"{MAX_MOVE_CHARS:,}, so nothing was read. {usage()}")
    return _squeeze_spaces(text)


def refuse_negative(text: str, allowed: str) -> None:
    """ParseError for a negative number where a grammar would otherwise read only digits
    (and so drop the sign): `allowed` says what may be typed instead."""
    negative = _NEGATIVE.search(text)
    if negative is not None:
        raise ParseError(f"'{negative.group()}' is negative; it is never read as "
                         f"{negative.group()[1:]}. {allowed}")


def number(digits: str, sign: int = 1) -> int:
    """A run of ASCII digits as an int, with its sign. `read_move` has refused longer runs
    already; this refuses them again (ParseError) for a caller that reads text on its own."""
    if len(digits.lstrip("0")) > MAX_DIGITS or not digits.isascii() or not digits.isdigit():
        raise ParseError(f"'{digits[:12]}' is not a number a move takes: type a small whole "
                         f"number with the digits 0 to 9.")
    return sign * int(digits)


def integers(text: str) -> list[int]:
    """Every whole number in the message, in order, with its sign: "draw -6" is -6, never 6
    (a dash between numbers, "5-6", is no sign). Only ASCII digits count (see `read_move`)."""
    return [number(m.group("digits"), -1 if m.group("sign") else 1)
            for m in _SIGNED.finditer(text)]


def position(text: str) -> int | None:
    """A 1-based position written as "#2", "2nd", "card 2", "second"; returned 0-based."""
    norm = normalize(text)
    ordinals = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
    for word, n in ordinals.items():
        if re.search(rf"\b{word}\b", norm):
            return n - 1
    m = re.search(r"(?:#|\bno\s*|\bnumber\s*|\bcard\s*|\bslot\s*|\bposition\s*)?(?<![0-9])([0-9]+)(?:st|nd|rd|th)?\b", text.lower())
    return number(m.group(1)) - 1 if m else None


def yes_no(text: str) -> bool | None:
    """True for yes-like answers, False for no-like ones, None otherwise."""
    norm = normalize(text)
    if norm in {"yes", "y", "yeah", "yep", "sure", "ok", "okay", "refill", "👍"}:
        return True
    if norm in {"no", "n", "nope", "nah", "pass", "skip", "👎"}:
        return False
    return None


@dataclass(frozen=True)
class MoveWords:
    """How a game tells a move typed in the public game room from chat: a move starts with
    one of `lead` (keywords, card and number tokens, phrases; a lead word must end the word
    it starts, so `r` matches "r3" and "r 3" but not "really"), or is exactly one of `whole`
    (short answers such as "yes" or "me" that would catch too much chat as leads)."""

    lead: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()

    def matches(self, text: str) -> bool:
        norm = normalize(text)
        if not norm:
            return False
        if norm in {normalize(w) for w in self.whole}:
            return True
        for word in self.lead:
            word = word.replace("\ufe0f", "").lower()
            if norm.startswith(word):
                after = norm[len(word):len(word) + 1]
                if not after or not after.isalpha():
                    return True
        return False


DIGITS = tuple("0123456789")


@dataclass(frozen=True)
class DecisionWords:
    """The words that start a move of each kind of decision of a game: how every grammar
    reads a move only as a word of the decision pending now (house ruling). A message that
    starts with a word of another decision, and not of the pending one, is refused with what
    is expected now; it is never read as something else ("draw 4" while the bot waits for a
    position is not position 4, "take 6" while a double is answered is not "take").

    `kinds` maps a decision kind to its words (phrases allowed; the longest match wins, and a
    word may belong to several kinds). The conformance harness types each kind's words into
    every other decision and checks they are refused (`harness.check_other_words`)."""

    kinds: Mapping[str, tuple[str, ...]]

    def kind_of(self, text: str, pending: Iterable[str]) -> str | None:
        """The kind whose word starts `text`: one of `pending` when its word does (the first
        listed wins a tie), else another kind's, else None (no known word: the pending
        decision's own reader decides)."""
        found = self._longest_word(words(text))
        if not found:
            return None
        return next((k for k in pending if k in found), found[0])

    def _longest_word(self, split: list[str]) -> list[str]:
        """The kinds (in `kinds` order) of the longest word or phrase that starts the message
        of these words, a whole word: the message is that word, or goes on after a space.
        Looked up by the message's first words, longest first (a game lists 60 words, and
        every message typed was tried against each of them)."""
        index, longest = self._index
        for count in range(min(len(split), longest), 0, -1):
            found = index.get(" ".join(split[:count]))
            if found:
                return found
        return []

    @functools.cached_property
    def _index(self) -> tuple[dict[str, list[str]], int]:
        """Each word or phrase -> its kinds in `kinds` order, and the most words in one."""
        index: dict[str, list[str]] = {}
        for kind, options in self.kinds.items():
            for option in options:
                if option:
                    index.setdefault(option, []).append(kind)
        return index, max((len(option.split(" ")) for option in index), default=0)

    def refuse_other(self, text: str, pending: Iterable[str], expected: str) -> None:
        """ParseError when `text` starts with a word of a decision not pending now."""
        pending = list(pending)
        kind = self.kind_of(text, pending)
        if kind is not None and kind not in pending:
            first = " ".join(words(text)[:2])[:30]
            raise ParseError(f"'{first}' is not an answer to what you are asked now. {expected}")
