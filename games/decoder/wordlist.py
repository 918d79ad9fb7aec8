"""The word list: loaded lazily once per file, kept as a frozenset for O(1) membership."""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "words.txt.gz"
MIN_LENGTH = 3
MAX_LENGTH = 15


class WordList:
    """Upper-case words of 3 to 15 letters A-Z from one file."""

    def __init__(self, words: frozenset[str], source: str) -> None:
        self.words = words
        self.source = source
        self._ordered: tuple[str, ...] | None = None

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.upper() in self.words

    def __len__(self) -> int:
        return len(self.words)

    @property
    def ordered(self) -> tuple[str, ...]:
        """The words sorted (for reproducible random sampling by bots)."""
        if self._ordered is None:
            self._ordered = tuple(sorted(self.words))
        return self._ordered


def _read(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")


@lru_cache(maxsize=4)
def _load(path: str) -> WordList:
    text = _read(Path(path))
    words = frozenset(
        w for w in (line.strip().upper() for line in text.splitlines())
        if MIN_LENGTH <= len(w) <= MAX_LENGTH and w.isascii() and w.isalpha()
    )
    if not words:
        raise ValueError(f"word list {path} has no words of {MIN_LENGTH}-{MAX_LENGTH} letters")
    return WordList(words, path)


def load_words(path: str | None = None) -> WordList:
    """The word list at `path` (plain or .gz, one word per line), or the shipped default.
    Loaded on first use and cached."""
    return _load(str(Path(path).expanduser()) if path else str(DEFAULT_PATH))
