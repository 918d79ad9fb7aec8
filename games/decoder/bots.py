"""Decoder's built-in players: a uniformly random legal player and a deducing heuristic one.

Both decide from the seat's view only (`random_legal` builds that view from the state, so the
conformance harness and the random bot make the same choices)."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import BaseModel

from games.core.contract import BotFactory, Command, Prompt
from games.decoder.commands import (
    ChooseClue,
    ChooseHand,
    ChooseRarities,
    GiveUp,
    GuessTotal,
    RaiseTime,
    Ready,
    SabotageTank,
    Swap,
    TakeTurn,
    UnexpectedSabotage,
)
from games.decoder.inference import (
    best_question,
    count,
    estimate_opponent_tanks,
    mask_of,
    opponent_belief,
    word_masks,
)
from games.decoder.letters import ALPHABET, HAND_SIZE
from games.decoder.rules import CLUES, clue_answer, clue_count, offered_clues, rarity_options
from games.decoder.views import DecoderView, build_view
from games.decoder.vocabulary import bot_words
from games.decoder.wordlist import load_words

if TYPE_CHECKING:
    from games.decoder.state import DecoderState


def _random_word(view: DecoderView, rng: random.Random) -> str:
    words = bot_words(view.word_list)
    used = set(view.used_words)
    while True:
        w = rng.choice(words)
        if w not in used:
            return w


def _me(view: DecoderView):
    assert view.seat is not None
    return view.players[view.seat]


def random_choice(view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
    """A random legal answer to `prompt`, from the view of its seat."""
    me = _me(view)
    items = me.items
    kind = prompt.kind
    if kind == "tune":
        if not me.ready and rng.random() < 0.5:
            return Ready()
        t = rng.choice(me.tanks)
        low = t.official or t.seconds or 1
        return RaiseTime(puzzle=t.name, seconds=rng.randint(low, max(low, view.max_seconds)))
    if kind == "rarity":
        c, u, r = rng.choice(rarity_options(view.extra_count or 0))
        return ChooseRarities(common=c, uncommon=u, rare=r)
    if kind == "hand":
        tiles = view.initial_tiles + view.extra_tiles
        return ChooseHand(letters=tuple(sorted(rng.sample(tiles, HAND_SIZE))))
    if kind == "turn":
        unused = [t.name for t in me.tanks if not t.used]
        tank = rng.choice(unused)
        surge = bool(items.power_surge) and rng.random() < 0.5
        action = "restore" if len(unused) == 1 else rng.choice(["ask", "guess", "restore"])
        if action == "ask":
            return TakeTurn(tank=tank, action="ask", word=_random_word(view, rng),
                            exclude=rng.choice(CLUES), power_surge=surge,
                            new_evidence=bool(items.new_evidence) and rng.random() < 0.5)
        if action == "guess":
            return TakeTurn(tank=tank, action="guess", letter=rng.choice(ALPHABET),
                            power_surge=surge)
        return TakeTurn(tank=tank, action="restore", power_surge=surge)
    if kind == "give_up":
        options: list[GiveUp] = [GiveUp(letter=ch) for ch in view.hand]
        if items.hand_insurance:
            options.append(GiveUp(insurance=True))
        return rng.choice(options)
    us = bool(items.unexpected_sabotage) and rng.random() < 0.5
    cur = view.history[-1]
    if kind == "clue":
        assert cur.exclude is not None
        return ChooseClue(clue=rng.choice(offered_clues(cur.exclude)), unexpected_sabotage=us)
    if kind == "swap":
        give = rng.choice([None, *view.hand])
        return Swap(give=give, unexpected_sabotage=us)
    if kind == "guess_total":
        n = len(cur.restored)
        return GuessTotal(total=rng.randint(n, 10 * n), unexpected_sabotage=us)
    if kind == "sabotage_tank":
        return SabotageTank(tank=rng.choice(cur.restored))
    return UnexpectedSabotage(use=bool(items.unexpected_sabotage) and rng.random() < 0.5)


def random_legal(state: DecoderState, prompt: Prompt, rng: random.Random) -> Command:
    return random_choice(build_view(state, prompt.seat), prompt, rng)


class RandomBot:
    name = "random"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DecoderView)
        return random_choice(view, prompt, rng)


@lru_cache(maxsize=4)
def letter_frequency(word_list: str | None) -> dict[str, float]:
    """The share of words in the list that contain each letter."""
    words = load_words(word_list).words
    counts = dict.fromkeys(ALPHABET, 0)
    for w in words:
        for ch in set(w):
            counts[ch] += 1
    return {ch: n / len(words) for ch, n in counts.items()}


class HeuristicBot:
    """Deduces the opponent's hand from every clue (see inference.py), asks the word whose
    least informative answer still informs most, guesses when a letter is likely, restores only
    when it must, and hides its own letters: rare letters in hand, least surprising answers,
    giving up and swapping out the letters the opponent's words touched most."""

    name = "deducer"
    guess_threshold = 0.55
    insured_threshold = 0.35
    word_sample = 90
    hypothesis_sample = 300

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DecoderView)
        handler = getattr(self, f"_{prompt.kind}")
        return handler(view, prompt, rng)

    # --- setup
    def _tune(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        me = _me(view)
        if not me.ready:
            return Ready()  # raising a time only slows you and can hand the opponent extra tiles
        # Already ready: keep the official times (setting one to what it is changes nothing).
        t = me.tanks[0]
        return RaiseTime(puzzle=t.name, seconds=t.seconds or t.official or 1)

    def _rarity(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        c, u, r = max(rarity_options(view.extra_count or 0), key=lambda o: (o[2], o[1]))
        return ChooseRarities(common=c, uncommon=u, rare=r)

    def _hand(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        freq = letter_frequency(view.word_list)
        tiles = sorted(view.initial_tiles + view.extra_tiles, key=lambda ch: freq[ch])
        return ChooseHand(letters=tuple(sorted(tiles[:HAND_SIZE])))

    # --- own turn
    def _turn(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        me = _me(view)
        unused = sorted((t for t in me.tanks if not t.used), key=lambda t: (t.units or 0, t.name))
        if len(unused) == 1:
            return TakeTurn(tank=unused[0].name, action="restore")
        tank = unused[0].name
        surge = me.items.power_surge > 0
        belief = opponent_belief(view, rng)
        marginals = belief.marginals()
        letter, p = max(marginals.items(), key=lambda kv: (kv[1], kv[0])) if marginals else ("", 0.0)
        threshold = self.insured_threshold if me.items.hand_insurance else self.guess_threshold
        if letter and p >= threshold:
            return TakeTurn(tank=tank, action="guess", letter=letter, power_surge=surge)
        sample = belief.sample(self.hypothesis_sample, rng)
        words = self._candidate_words(view, rng)
        evidence = me.items.new_evidence > 0
        word, refused, _bits = best_question(sample, words, both=evidence)
        return TakeTurn(tank=tank, action="ask", word=word, exclude=refused,
                        power_surge=surge, new_evidence=evidence)

    def _candidate_words(self, view: DecoderView, rng: random.Random) -> list[str]:
        words = bot_words(view.word_list)
        used = set(view.used_words)
        out: list[str] = []
        while len(out) < self.word_sample:
            w = rng.choice(words)
            if w not in used and 3 <= len(w) <= 8:
                out.append(w)
        return out

    def _give_up(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        if _me(view).items.hand_insurance:
            return GiveUp(insurance=True)
        return GiveUp(letter=self._most_exposed(view, rng))

    def _most_exposed(self, view: DecoderView, rng: random.Random) -> str:
        """The letter of our hand that the opponent's asked words touched most since our hand
        last changed (the one they are closest to finding)."""
        me = view.seat
        last_swap = max((o.turn for o in view.offers if o.gave), default=0)
        exposure = dict.fromkeys(view.hand, 0.0)
        for r in view.history:
            if r.seat != me and r.action == "ask" and r.word and r.number >= last_swap:
                for ch in set(r.word):
                    if ch in exposure:
                        exposure[ch] += 1.0 / len(set(r.word))
        best = max(exposure.values())
        return rng.choice(sorted(ch for ch, v in exposure.items() if v == best))

    # --- responses
    def _clue(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        """Give the answer the opponent would find least surprising (a rough model of what they
        know: random hands of our size from the letters not yet revealed)."""
        cur = view.history[-1]
        assert cur.word is not None and cur.exclude is not None
        size = len(view.hand)
        pool = [ch for ch in ALPHABET if ch not in view.revealed]
        masks = word_masks(cur.word)
        sample = [mask_of(rng.sample(pool, size)) for _ in range(200)]
        best: tuple[int, str] | None = None
        for clue in offered_clues(cur.exclude):
            mine = clue_answer(clue, clue_count(cur.word, view.hand))
            agree = sum(1 for hand in sample if clue_answer(clue, count(hand, masks)) == mine)
            if best is None or agree > best[0]:
                best = (agree, clue)
        assert best is not None
        return ChooseClue(clue=best[1], unexpected_sabotage=self._use_us(view))

    def _swap(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        # A new letter voids the opponent's old clues about the one it replaces.
        return Swap(give=self._most_exposed(view, rng), unexpected_sabotage=self._use_us(view))

    def _guess_total(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        cur = view.history[-1]
        est = estimate_opponent_tanks(view)
        total = round(sum(est.get(name, 8.0) for name in cur.restored))
        return GuessTotal(total=max(len(cur.restored), total), unexpected_sabotage=self._use_us(view))

    def _sabotage_tank(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        cur = view.history[-1]
        est = estimate_opponent_tanks(view)
        return SabotageTank(tank=min(cur.restored, key=lambda n: (est.get(n, 8.0), n)))

    def _sabotage_option(self, view: DecoderView, prompt: Prompt, rng: random.Random) -> Command:
        return UnexpectedSabotage(use=self._use_us(view))

    @staticmethod
    def _use_us(view: DecoderView) -> bool:
        """Play Unexpected Sabotage as soon as the opponent uses one of their fastest tanks."""
        if not _me(view).items.unexpected_sabotage:
            return False
        cur = view.history[-1]
        est = estimate_opponent_tanks(view)
        ranked = sorted(est.values())
        return est.get(cur.tank, 99.0) <= ranked[len(ranked) // 2]


BOTS: dict[str, BotFactory] = {"deducer": HeuristicBot, "random": RandomBot}
