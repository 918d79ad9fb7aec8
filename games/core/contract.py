"""The contract every game implements.

A game is a stateless object (a subclass of `Game`) whose methods are pure functions over
a pydantic state. The runtime (bot/) only ever talks to games through this module's types:

- `setup(settings, seed)` builds the initial state; seat 0 is always the player the host
  named as holding the advantage ("DM advantage", "priority").
- `prompts(state)` says who must decide what now. Simultaneous decisions are several prompts.
- `check(state, seat, command)` raises `IllegalMove` with words a player understands;
  `apply(state, seat, command)` mutates the state and returns the events it produced.
  Automatic steps (antes, deals, reveals, scoring) happen inside `apply`.
- Dispatch is the contract's: a game declares tables (`answers`: which commands answer each
  prompt kind; `checks` and `applies`: one handler per command type; `refusals`: a command
  type's own words when it comes out of its decision; `timeouts`: the seed's default for
  each prompt kind) and `Game.check`/`Game.apply` route through them, refusing moves after
  the end, stale timeouts and commands out of turn the same way in every game. No engine
  branches on a command's class.
- A `Timeout` command is how every clock expiry reaches the engine: the engine applies the
  seed's default for that prompt (which may be a loss), through the same path as a move.
- Events carry an `Audience`; text may name players with the placeholders `{P0}` and `{P1}`,
  which the runtime replaces with the players' names.
- `reveals` (a `Reveals`) declares what the game shows of its secrets beyond the game room,
  and when: nothing while the match runs (the spectator feed shows what both players may
  know), what the rules kept from each player once it is over (`games.core.feed`).
- `controls` (a `Controls`) declares how a front end with buttons and menus presents the
  decisions (labels, colours, layouts, helper notes, the /rules summary), working from the
  views alone (`games.core.controls`); the Discord layer reads it and nothing else.
- `quick` (a `Quick`) declares the settings tests and benches use: short matches, matches no
  host has to attend, no waits but the clocks, decision clocks set to a figure
  (`Game.quick_settings`).
- The rules page is `docs/rules/<slug>.md`, shipped in the game's package
  (`Game.rules_page`).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Generic,
    Literal,
    Protocol,
    TypeVar,
    Union,
)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from games.core.controls import Asked, Control, Option, Tone
from games.core.pages import rules_page

if TYPE_CHECKING:
    from games.core.parsing import DecisionWords, MoveWords

SEAT_PLACEHOLDERS = ("{P0}", "{P1}")


def seat_name(seat: int) -> str:
    """The placeholder for a seat's player name in event and prompt text."""
    return SEAT_PLACEHOLDERS[seat]


class IllegalMove(Exception):
    """A well-formed command that the rules do not allow now. The message is for the player."""


class ParseError(Exception):
    """Text that is not a command of the game. The message is a short usage line."""


MATCH_OVER = "The match is over."
NOT_A_PLAYER = "Only the two players can play."
STALE_TIMEOUT = "That decision is not pending (its clock is stale)."


class Audience(BaseModel):
    """Who may see an event: everyone, one seat, or only the umpire (host log)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["public", "seat", "umpire"]
    seat: int | None = None

    @classmethod
    def public(cls) -> Audience:
        return _PUBLIC

    @classmethod
    def umpire(cls) -> Audience:
        return _UMPIRE

    @classmethod
    def to(cls, seat: int) -> Audience:
        return _SEATS[seat]

    def allows(self, seat: int | None) -> bool:
        """Whether a viewer (a seat, or None for a spectator) may see this."""
        if self.kind == "public":
            return True
        if self.kind == "seat":
            return seat is not None and seat == self.seat
        return False

    def __str__(self) -> str:
        return f"seat{self.seat}" if self.kind == "seat" else self.kind


_PUBLIC = Audience(kind="public")
_UMPIRE = Audience(kind="umpire")
_SEATS = (Audience(kind="seat", seat=0), Audience(kind="seat", seat=1))


class Event(BaseModel):
    """Something that happened, told to one audience.

    `kind` is a stable machine name ("draft.dealt"); `text` is the plain sentence a person
    reads (no Discord markup; cards in the game's own notation); `data` is JSON-safe detail.

    A break: an event whose data holds `pause_seconds` (e.g. the break between rounds) makes
    the runtime post the decisions that follow, and start their clocks, that many seconds
    later (moves typed during the break are refused).
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    audience: Audience
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


def say(events: list[Event], kind: str, text: str, audience: Audience | None = None,
        **data: Any) -> None:
    """Append an event (public unless `audience` says otherwise): every game's one way to
    tell something."""
    events.append(Event(kind=kind, audience=audience or _PUBLIC, text=text, data=data))


class OnTimeout(StrEnum):
    """What happens when a prompt's clock (and time bank) runs out."""

    DEFAULT = "default"  # the engine applies the seed's default decision
    LOSE = "lose"  # the engine declares the player lost
    NOTHING = "nothing"  # no automatic outcome: the runtime reminds and tells the hosts


class Prompt(BaseModel):
    """One pending decision."""

    model_config = ConfigDict(frozen=True)

    key: str  # unique for this decision instance over the whole match (stale-timer check)
    seat: int
    kind: str  # the decision kind, e.g. "draft_pick", "bet"
    private: bool  # made in the seat's table channel (True) or in the public room
    text: str  # instruction for the decider; shown only where the decision is made
    time_limit: float | None = None  # seconds; None means untimed
    bank: float | None = None  # remaining time bank (seconds) this decision may draw on
    bank_step: float = 5.0  # the bank is charged in steps of this many seconds
    reminders: tuple[float, ...] = ()  # seconds left on the turn timer at which to remind
    bank_reminder_every: float | None = None  # remind at every multiple of this much bank used
    on_timeout: OnTimeout = OnTimeout.DEFAULT
    timeout_text: str = ""  # e.g. "you will be assumed to fold"
    resubmittable: bool = False  # the last valid submission before the deadline counts
    # Ready-made answers for buttons and menus: each is text that `parse` accepts for this
    # prompt ("call 2", "fold", "keep R3"). At most 25; empty when free text is needed.
    choices: tuple[str, ...] = ()
    # A private decision whose arrival is the seat's secret (Double or Nothing asks which of
    # two identical sets was played only when the hand held it twice; Decoder's second setup
    # step comes when a player finishes the first): the runtime never mentions it outside the
    # seat's table channel (no "waiting for" line), and the two-world harness does not let
    # anyone else observe it.
    quiet: bool = False
    # The same decision in a few words (whose, the figures it needs, the choices), for a
    # player who has met this kind of decision in the match already; the runtime shows the
    # full `text` the first time. Empty: always the full text.
    brief: str = ""
    # A typed move answering this decision is taken this many seconds after it was sent,
    # not at once, so that its sender can fix a typo or a move sent too early (Decoder's
    # prompt fix): until then an edit of the message replaces it and a deletion withdraws
    # it, and the decider's clock stands still. 0: taken at once. Clicks are always taken at
    # once (nothing to mistype), and so are private decisions.
    fix_seconds: float = 0.0


class Reveals(BaseModel):
    """What a game shows of its secrets beyond the game room, and when. The spectator feed
    (`games.core.feed`), the export and the transcript of a match read this declaration.

    Anyone may read a match's feed, its two players included, so while the match runs the
    feed shows only what both players may know: the game room's lines, nothing else. What
    the rules keep from a player (a hand a fold left unshown, the hand a bout ended with, a
    pool that carries over) is shown only once the match is over, by the rules or by the
    hosts: then the feed's last message, the export and the transcript show `text`."""

    model_config = ConfigDict(frozen=True)

    # What is shown once the match is over, in the words of the game's rules page (its
    # section on the feed says this sentence): a host reads there what the bot will show.
    at_end: str
    # What is never shown, not even then ("" for nothing): the bot never posts it. (The
    # seed revealed at the end lets anyone replay the deals; this is the bot's own reticence
    # about what no rule makes public, not a secret kept from the record.)
    never: str = ""
    # The text of the reveal, from the state the match ended in: by the rules, or midway,
    # when the hosts ended it (then it also shows what the unit in progress held). Plain
    # text naming players with {P0}/{P1}; it starts with "🔓". Kept out of the JSON.
    text: Callable[[Any], str] = Field(exclude=True)


def _same(choice: str) -> str:
    return choice


def _primary(choice: str) -> Tone:
    return Tone.PRIMARY


class Controls(BaseModel):
    """How a front end with buttons and menus (the Discord layer) presents the game's
    decisions. Every field has a default: without any, a decision with a few short choices
    gets a row of buttons, one with more a menu (at most 25), and anything else is typed.

    The hooks receive an `Asked` (games.core.controls): the decision's public facts and the
    view of the audience the message goes to, never the state, so what they show is what
    that audience may know already."""

    model_config = ConfigDict(frozen=True)

    # A few lines at the top of /rules, before the start of the rules page: the game in
    # one breath, and where each kind of decision is made.
    summary: str = ""
    # The label of a choice's button or menu option (the choice's text is what it submits):
    # "keep 🪨7" shows as "🪨7".
    label: Callable[[str], str] = Field(default=_same, exclude=True)
    # A choice's button colour, by what it does (fold is a danger, call a go-ahead).
    tone: Callable[[str], Tone] = Field(default=_primary, exclude=True)
    # Up to this many choices, each label at most `short_label` characters, become buttons;
    # more become a menu (buttons are one click, a menu two).
    max_buttons: int = 5
    short_label: int = 25
    # Rows of controls for one decision (at most five a row), or None for the default
    # buttons or menu: a layout the game knows better (bets by amount, a menu of the cards
    # that can be played, a button answered privately).
    rows: Callable[[Asked], list[list[Control]] | None] | None = Field(None, exclude=True)
    # A helper note shown under one decision's message (the exact forms to type, a sum
    # helper), or None. It goes to the decision's audience; its view holds what it may say.
    note: Callable[[Asked], str | None] | None = Field(None, exclude=True)
    # The options a `Private` control shows to the clicker alone; `Asked.view` is the
    # clicker's own view (their hand), since the menu goes to them alone.
    private_options: Callable[[Asked], list[Option]] | None = Field(None, exclude=True)


class Quick(BaseModel):
    """The settings tests and benches use (`Game.quick_settings`), declared by the game that
    knows which of its settings make a match short and which are clocks, so that no test or
    bench keeps a list of games' settings."""

    model_config = ConfigDict(frozen=True)

    # Settings that make a match short (few chips, a low target): a load test or a bot
    # match in a test wants many matches to end within its budget.
    short: Mapping[str, Any] = Field(default_factory=dict)
    # What a match needs to go on with no host attending (bots on both seats): Decoder's
    # setup locks once both players are ready. Part of every quick setting.
    unattended: Mapping[str, Any] = Field(default_factory=dict)
    # The waits the rules put in besides the decision clocks, taken out (the break between
    # rounds, the prompt fix's window): a bench measures the runtime, not the rules' pauses.
    no_waits: Mapping[str, Any] = Field(default_factory=dict)
    # The settings that put every decision clock at the given seconds and remind of none, for
    # a bench that sets the clocks or a test that must see none of them run out. {} for an
    # untimed game.
    clocks: Callable[[float], Mapping[str, Any]] = Field(default=lambda seconds: {},
                                                         exclude=True)


class Command(BaseModel):
    """Base of every typed decision. Subclasses add `type: Literal[...]` and their fields.

    `elapsed` is filled by the runtime with the seconds the decision took (paused time
    excluded); engines that run time banks read it, others ignore it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    elapsed: float | None = None


class Timeout(Command):
    """The clock of prompt `prompt_key` ran out: apply the seed's default for it."""

    type: Literal["timeout"] = "timeout"
    prompt_key: str


class Outcome(BaseModel):
    """How a finished match ended. `winner` None means a draw."""

    model_config = ConfigDict(frozen=True)

    winner: int | None
    reason: str
    score: tuple[int, int] | None = None


class Secret(BaseModel):
    """A piece of hidden information, for the conformance harness's leak check.

    `value` must not appear as a whole word in any event, prompt or view that an audience
    outside `known_to` can see. Games choose values that cannot appear there innocently.
    """

    model_config = ConfigDict(frozen=True)

    value: str
    known_to: frozenset[int] = frozenset()
    label: str = ""


StateT = TypeVar("StateT", bound=BaseModel)
CommandT = TypeVar("CommandT", bound=Command)


class Bot(Protocol):
    """A built-in player. It sees only what its seat may know (the seat's view)."""

    name: str

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command: ...


BotFactory = Callable[[], Bot]

#: A command's legality check, the decision kind already matched: raise IllegalMove.
CheckHandler = Callable[[Any, int, Any], None]
#: What a checked command does: mutate the state, append events.
ApplyHandler = Callable[[Any, int, Any, list[Event]], None]
#: The seed's default for a prompt whose clock ran out: mutate the state, append events.
TimeoutHandler = Callable[[Any, int, Prompt, list[Event]], None]
#: Why a command is refused out of its decision, in its type's own words; None: the game's
#: general refusal (`Game.refusal`) gives the reason.
RefusalHandler = Callable[[Any, int, Any], str | None]
#: A word for the mover alone about a legal command of this type (`Game.advice`); None: none.
AdviceHandler = Callable[[Any, int, Any], str | None]


class Game(ABC, Generic[StateT]):
    """A game's rules. Subclasses are stateless; every method is a pure function of its inputs
    (apply mutates the state it is given)."""

    slug: ClassVar[str]  # command-line and Discord name, e.g. "rps-poker"
    title: ClassVar[str]  # "Turn-based RPS Poker"
    seats: ClassVar[int] = 2
    settings_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[BaseModel]]
    command_types: ClassVar[tuple[type[Command], ...]]  # every command class, Timeout included

    _adapter: ClassVar[TypeAdapter[Any] | None] = None
    _kinds: ClassVar[dict[type[Command], frozenset[str]] | None] = None
    #: Whether the runtime stores snapshots of the state, to resume without replaying the
    #: whole action log. A game whose state carries its whole history (each snapshot as big
    #: as the match so far: storage quadratic in its length) sets False; its state is then
    #: rebuilt from the seed and the action log, which holds that history already.
    snapshots: ClassVar[bool] = True

    # --- life cycle -------------------------------------------------------------------
    @abstractmethod
    def setup(self, settings: BaseModel, seed: str) -> StateT:
        """The initial state (automatic opening steps already done)."""

    def opening_events(self, state: StateT) -> list[Event]:
        """Events announcing the start (pools shown, first deal...). Default: none."""
        return []

    @abstractmethod
    def prompts(self, state: StateT) -> list[Prompt]:
        """Every decision pending now; empty once the match is over."""

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the match is over, else None."""

    # --- dispatch: the tables a game declares ----------------------------------------------
    #: Which commands answer each prompt kind (a command of no kind here answers no prompt:
    #: a host's award, checked by its handler alone).
    answers: ClassVar[Mapping[str, tuple[type[Command], ...]]] = {}
    #: The legality check of each command type (`Command.type`), its decision kind matched.
    checks: ClassVar[Mapping[str, CheckHandler]] = {}
    #: What each command type does once checked.
    applies: ClassVar[Mapping[str, ApplyHandler]] = {}
    #: A command type's own refusal when it answers none of the seat's pending decisions
    #: (a refill its player could not pay for, a second pick), before the general one.
    refusals: ClassVar[Mapping[str, RefusalHandler]] = {}
    #: A command type's advice to its mover (`advice`): a legal move that cannot succeed.
    advices: ClassVar[Mapping[str, AdviceHandler]] = {}
    #: The seed's default for each prompt kind whose clock runs out; a kind with none has no
    #: automatic outcome (the hosts decide).
    timeouts: ClassVar[Mapping[str, TimeoutHandler]] = {}
    #: How many public texts the state's `log` keeps (its last ones); 0: the state has none.
    log_keep: ClassVar[int] = 0
    #: What the game shows of its secrets beyond the room, and when (`Reveals`). None: it
    #: shows nothing but the room, ever (a game with secrets declares its reveals).
    reveals: ClassVar[Reveals | None] = None
    #: How a front end with buttons and menus presents the decisions (`Controls`).
    controls: ClassVar[Controls] = Controls()
    #: The settings tests and benches use (`Quick`, `quick_settings`).
    quick: ClassVar[Quick] = Quick()

    def check(self, state: StateT, seat: int, command: Command) -> None:
        """Raise IllegalMove if `seat` may not make `command` now. Never changes the state."""
        if seat not in range(self.seats):
            raise IllegalMove(NOT_A_PLAYER)
        if self.is_over(state):
            raise IllegalMove(MATCH_OVER)
        if isinstance(command, Timeout):
            prompt = self.prompt(state, command.prompt_key)
            if prompt is None or prompt.seat != seat:
                raise IllegalMove(STALE_TIMEOUT)
            if prompt.kind not in self.timeouts:
                raise IllegalMove(f"Going over the time limit has no automatic outcome in "
                                  f"{self.title}: the hosts decide.")
            return
        name = getattr(command, "type", "")
        handler = self.checks.get(name)
        if handler is None:
            raise IllegalMove(f"That is not a {self.title} move.")
        answering = self._kinds_of(type(command))
        if answering:
            kinds = self.pending_kinds(state, seat)
            if answering.isdisjoint(kinds):
                own = self.refusals.get(name)
                reason = None if own is None else own(state, seat, command)
                raise IllegalMove(self.refusal(state, seat, command, kinds)
                                  if reason is None else reason)
        handler(state, seat, command)

    def apply(self, state: StateT, seat: int, command: Command) -> list[Event]:
        """Apply a checked command (mutating `state`) and return the events it caused."""
        events: list[Event] = []
        if isinstance(command, Timeout):
            prompt = self.prompt(state, command.prompt_key)
            assert prompt is not None, "a checked timeout has its prompt pending"
            self.timeouts[prompt.kind](state, seat, prompt, events)
        else:
            self.applies[command.type](state, seat, command, events)  # type: ignore[attr-defined]  # (every command model has its type tag)
        if self.log_keep:
            log: list[str] = state.log  # type: ignore[attr-defined]  # (log_keep: the game's state has a log)
            log.extend(e.text for e in events if e.audience.kind == "public")
            del log[:-self.log_keep]
        return events

    def is_over(self, state: StateT) -> bool:
        """Whether the match has ended (games override it with a cheaper test)."""
        return self.outcome(state) is not None

    def pending_kinds(self, state: StateT, seat: int) -> set[str]:
        """The kinds of decision `seat` has pending (games may override it with a test that
        builds no prompt text)."""
        return {p.kind for p in self.prompts(state) if p.seat == seat}

    def refusal(self, state: StateT, seat: int, command: Command, kinds: set[str]) -> str:
        """Why `command` is refused when `seat`'s pending decision kinds are `kinds` (its own
        kind not among them): what it is asked, or who is awaited. A game overrides it for
        words of its own that hold for every command; one command type's own words go in
        `refusals`."""
        if kinds:
            return f"That is not what you are asked now. {self.usage(state, seat)}"
        waiting = ", ".join(sorted({p.kind.replace("_", " ") for p in self.prompts(state)}))
        return f"It is not your decision now (waiting for: {waiting or 'nothing'})."

    @classmethod
    def _kinds_of(cls, command_type: type[Command]) -> frozenset[str]:
        """The prompt kinds a command answers (none: it answers no prompt)."""
        table = cls.__dict__.get("_kinds")
        if table is None:
            found: dict[type[Command], set[str]] = {}
            for kind, types in cls.answers.items():
                for t in types:
                    found.setdefault(t, set()).add(kind)
            table = {t: frozenset(kinds) for t, kinds in found.items()}
            cls._kinds = table
        return table.get(command_type, frozenset())

    # --- information ------------------------------------------------------------------
    @abstractmethod
    def view(self, state: StateT, seat: int | None) -> BaseModel:
        """What `seat` may know (None: a spectator)."""

    def describe(self, state: StateT, seat: int | None) -> str:
        """What `seat` knows, as plain text for a player who asks ("what is my pool?").
        Default: the seat's view, field by field; games may override with a nicer summary."""
        return describe_model(self.view(state, seat))

    def status(self, state: StateT) -> str | None:
        """A short public status line (e.g. Decoder's time banks) that goes with every message
        of a running match, as of that message's moment; None for none. Public information
        only: the conformance harness checks it for secrets."""
        return None

    @abstractmethod
    def secrets(self, state: StateT) -> list[Secret]:
        """Hidden information now, for the leak checks of the conformance harness."""

    def twin(self, state: StateT, seat: int, rng: random.Random) -> StateT | None:
        """A copy of `state` that differs only in secrets of `seat`, for the two-world
        information check (`games.core.information`).

        The twin varies what `seat` knows and its opponent does not: its hidden cards or hand,
        its private choices so far, whether it earned something. Everything the opponent and a
        spectator know stays equal, the chance generator's state included, and the twin must go
        on looking identical to them until `seat` itself reveals something: vary only cards
        that stay hidden (swap a hidden card with one from a pile that is never shown, say),
        never cards a later deal would hand to the opponent. None when `seat` has no secret
        now. Default: None (a game with secrets must override it; the check fails a game that
        never makes a twin)."""
        return None

    # --- hosts ------------------------------------------------------------------------
    def host_award_units(self, state: StateT) -> tuple[str, ...]:
        """What hosts may award now besides the whole match, e.g. ("bout",) while a bout of a
        game whose clocks have no automatic outcome runs. Default: nothing."""
        return ()

    def host_award(self, state: StateT, seat: int, unit: str, reason: str) -> Command:
        """The command that awards `unit` (one of `host_award_units`) to `seat`. The runtime
        checks and applies it for `seat`, whoever's decision is pending, and logs it as the
        hosts' action. Raise IllegalMove for a unit that cannot be awarded now."""
        raise IllegalMove(f"Only the whole match can be awarded in {self.title}.")

    # --- text -------------------------------------------------------------------------
    @abstractmethod
    def parse(self, state: StateT, seat: int, text: str) -> Command:
        """Turn what a player typed into a command (raise ParseError with a usage line)."""

    def move_words(self, state: StateT) -> MoveWords | None:
        """How a move typed in the public game room is told from chat (anything else typed
        there gets no answer). Only public facts may decide it (the game's vocabulary, its
        settings), never a secret, so whether a text counts as a move tells nobody anything.
        None: every message typed there is a move."""
        return None

    def decision_words(self) -> DecisionWords | None:
        """The words that start a move of each decision kind (`parsing.DecisionWords`): the
        grammar refuses them outside their decision, and the conformance harness types them
        into every other decision to check that. None: not declared."""
        return None

    def advice(self, state: StateT, seat: int, command: Command) -> str | None:
        """A word for the mover alone about a legal command that cannot succeed (Decoder: a
        letter already revealed, or one in the guesser's own hand), told privately before the
        command is taken; the command stands. It may speak of the mover's own secrets, never
        of the opponent's. Declared per command type in `advices`."""
        handler = self.advices.get(getattr(command, "type", ""))
        return handler(state, seat, command) if handler is not None else None

    def usage(self, state: StateT, seat: int) -> str:
        """What `seat` could type now."""
        return "; ".join(p.text for p in self.prompts(state) if p.seat == seat)

    def move_help(self) -> tuple[str, ...]:
        """Every kind of move a player may type, one line each with an example, in the
        grammar's own words (what the console's /help lists). Default: none."""
        return ()

    # --- players ----------------------------------------------------------------------
    @abstractmethod
    def random_command(self, state: StateT, prompt: Prompt, rng: random.Random) -> Command:
        """A uniformly random legal command answering `prompt` (conformance and demo)."""

    def bots(self) -> Mapping[str, BotFactory]:
        """Built-in players by name; the first is the default opponent."""
        return {}

    def warm(self) -> None:
        """Build now what the rules and the built-in bots would otherwise build on first use
        (a word list, a large table), so that no move pays for it. The runtime calls this
        once at start, off its event loop. Default: nothing to build."""

    # --- checks -----------------------------------------------------------------------
    def invariants(self, state: StateT) -> None:
        """Raise AssertionError if the state breaks a conservation rule. Default: none."""

    # --- derived helpers (not for overriding) ---------------------------------------------
    @classmethod
    def command_adapter(cls) -> TypeAdapter[Any]:
        """Validates stored command JSON back into the right command class."""
        adapter = cls.__dict__.get("_adapter")
        if adapter is None:
            union = _discriminated_union(cls.command_types)
            adapter = TypeAdapter(union)
            cls._adapter = adapter
        return adapter

    def quick_settings(self, clock: float | None = None, *, short: bool = True,
                       waits: bool = True) -> dict[str, Any]:
        """Settings for tests and benches (`quick`): a match no host has to attend; `short`:
        a short one; `clock`: every decision clock at that many seconds and nothing else
        timed; `waits` False: no waits but the clocks (`no_waits`; implied by `clock`).
        Checked against the settings model here, not in the middle of a run."""
        declared = type(self).quick
        out = {**(declared.short if short else {}), **declared.unattended}
        if clock is not None or not waits:
            out.update(declared.no_waits)
        if clock is not None:
            out.update(declared.clocks(clock))
        self.settings_model(**out)
        return out

    def rules_page(self) -> str | None:
        """The game's whole rules page (Markdown; `games.core.pages`), None if it has none."""
        return rules_page(self.slug, type(self).__module__)

    def load_command(self, data: Mapping[str, Any]) -> Command:
        return self.command_adapter().validate_python(data)

    def load_state(self, data: Mapping[str, Any] | str) -> StateT:
        if isinstance(data, str):
            return self.state_model.model_validate_json(data)  # type: ignore[return-value]  # (state_model is StateT's class)
        return self.state_model.model_validate(data)  # type: ignore[return-value]  # (state_model is StateT's class)

    def load_settings(self, data: Mapping[str, Any] | None) -> BaseModel:
        return self.settings_model.model_validate(dict(data or {}))

    def prompt(self, state: StateT, key: str) -> Prompt | None:
        """The pending prompt with this key, if it is still pending."""
        return next((p for p in self.prompts(state) if p.key == key), None)

    def submit(self, state: StateT, seat: int, command: Command) -> list[Event]:
        """check, then apply."""
        self.check(state, seat, command)
        return self.apply(state, seat, command)


def describe_model(model: BaseModel) -> str:
    """A readable "Field name: value" listing of a view (empty fields left out)."""
    lines = []
    for name, value in model.model_dump(mode="json").items():
        if value in (None, "", [], {}):
            continue
        label = name.replace("_", " ").capitalize()
        lines.append(f"{label}: {_plain(value)}")
    return "\n".join(lines)


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) if all(
            not isinstance(v, dict | list) for v in value) else "; ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        if "label" in value:
            return str(value["label"])
        return ", ".join(f"{k.replace('_', ' ')} {_plain(v)}" for k, v in value.items()
                         if v not in (None, "", [], {}))
    return str(value)


def _discriminated_union(types: Sequence[type[Command]]) -> Any:
    if len(types) == 1:
        return types[0]
    return Annotated[Union[tuple(types)], Field(discriminator="type")]  # noqa: UP007
