"""Helpers for the tolerant text-to-command parsers of the games.

Players type moves as chat messages: "Raise 3", "raise3", "  FOLD ", "play #2", "keep r3!".
Each game writes its own grammar; these helpers do the common reading so grammars stay short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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


#: Digits kept of a typed number: longer numbers read as this many nines, which every rule
#: then refuses as too large (int() of thousands of digits is slow, and over 4,300 raises).
MAX_DIGITS = 18


def number(digits: str) -> int:
    """A run of decimal digits (any script: "42", "٤٢", "４２") as an int, capped."""
    if len(digits) > MAX_DIGITS:
        return int("9" * MAX_DIGITS)
    return int(digits)


def integers(text: str) -> list[int]:
    """Every whole number in the message, in order (capped: see `number`)."""
    return [number(n) for n in re.findall(r"\d+", text)]


def position(text: str) -> int | None:
    """A 1-based position written as "#2", "2nd", "card 2", "second"; returned 0-based."""
    norm = normalize(text)
    ordinals = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
    for word, n in ordinals.items():
        if re.search(rf"\b{word}\b", norm):
            return n - 1
    m = re.search(r"(?:#|\bno\s*|\bnumber\s*|\bcard\s*|\bslot\s*|\bposition\s*)?(\d+)(?:st|nd|rd|th)?\b", text.lower())
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
