"""The words the built-in bots ask: common, inoffensive vocabulary.

A bot's word is said in public, so it comes from the most frequent English words (the
`wordfreq` package's list), less every word of `better-profanity`'s list of offensive words
and every word that starts with one of the stems below, and only words of the configured word
list (so each is a legal ask). Players may still ask any word of the configured list.

When a host's list shares too few words with the frequency list (another language, say), the
bots fall back to the configured list itself, still filtered for offensive words.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from games.decoder.wordlist import load_words

COMMON_WORDS = 30_000  # how many of the most frequent English words the bots may draw from
MIN_VOCABULARY = 500  # below this many common words in the list, use the list itself

# Stems whose every continuation is unfit to post (a compound like PORNOMAG is in no list).
OFFENSIVE_STEMS = ("porn", "fuck", "shit", "cunt", "nigg", "fagg", "rape", "rapist", "slut",
                   "whor", "wank", "cock", "dick", "puss", "tits", "twat", "bitch", "nazi",
                   "piss", "bollock", "dildo", "jizz", "spunk", "turd", "bastard", "retard")


@lru_cache(maxsize=1)
def offensive_words() -> frozenset[str]:
    """better-profanity's word list (lower case, single words)."""
    try:
        text = files("better_profanity").joinpath("profanity_wordlist.txt").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return frozenset()
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip().isalpha())


def is_offensive(word: str) -> bool:
    w = word.lower()
    return w in offensive_words() or w.startswith(OFFENSIVE_STEMS)


@lru_cache(maxsize=1)
def _frequent() -> tuple[str, ...]:
    try:
        from wordfreq import top_n_list  # noqa: PLC0415 (optional: the list is shorter without it)
    except ModuleNotFoundError:
        return ()
    return tuple(top_n_list("en", COMMON_WORDS))


@lru_cache(maxsize=4)
def bot_words(word_list: str | None = None) -> tuple[str, ...]:
    """The bots' words for this word list, upper case, sorted (reproducible sampling)."""
    allowed = load_words(word_list)
    common = sorted({w.upper() for w in _frequent()
                     if w.isascii() and w.isalpha() and w.upper() in allowed
                     and not is_offensive(w)})
    if len(common) >= MIN_VOCABULARY:
        return tuple(common)
    return tuple(w for w in allowed.ordered if not is_offensive(w))
