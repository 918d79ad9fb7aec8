"""Seeded chance kept inside a game's state.

Every random draw of a match (shuffles, deals, random letters) comes from one `Chance`
stored in the match state, so the same seed and command log always replay to the same
state. The generator is SplitMix64 with unbiased bounded draws: its whole state is one
integer (cheap to snapshot as JSON) and, unlike `random.Random.shuffle`, its output is
fixed by this file rather than by the Python version.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def seed_to_int(seed: str) -> int:
    """Map any seed text to a 64-bit starting state (SHA-256, so similar seeds diverge)."""
    digest = hashlib.sha256(b"umpire-chance:" + seed.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


#: Bytes of random salt in a seed commitment (128 bits: a short or guessable seed cannot be
#: found by hashing candidates, since every candidate must be tried with every salt).
SALT_BYTES = 16


def new_salt() -> str:
    """A fresh random salt for a seed commitment, as hex (kept secret until the match ends)."""
    return secrets.token_hex(SALT_BYTES)


def seed_commitment(seed: str, salt: str | None = None) -> str:
    """The SHA-256 commitment published when a match starts: of the UTF-8 text
    `<salt>:<seed>` (both revealed at the end, so anyone can recompute it). Without a salt
    (matches stored before salting) it is SHA-256 of the seed alone, which a short seed does
    not hide: only `verify` of such old records uses that form."""
    text = seed if salt is None else f"{salt}:{seed}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Chance(BaseModel):
    """A deterministic random generator whose state is one integer."""

    state: int = 0

    @classmethod
    def from_seed(cls, seed: str) -> Chance:
        return cls(state=seed_to_int(seed))

    def next64(self) -> int:
        """The next raw 64-bit output."""
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) (Lemire's method with rejection: no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        threshold = ((1 << 64) - n) % n
        while True:
            product = self.next64() * n
            if (product & _MASK) >= threshold:
                return product >> 64

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in [low, high], both ends included."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice() from an empty sequence")
        return items[self.below(len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """k distinct positions of `items`, in random order."""
        if k > len(items):
            raise ValueError("sample larger than population")
        pool = list(items)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]
