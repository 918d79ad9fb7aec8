"""What the service refuses and what it tells people when the store fails."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator

from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from bot.store.errors import StoreUnavailable

log = logging.getLogger(__name__)


class UmpireError(Exception):
    """A request the service refuses; the message is for the person who made it."""


class NotStored(UmpireError):
    """The store could not take a write (the database is down, locked or failing): nothing
    of it took effect, the live match is exactly as it was. A player is told where they
    typed; a clock or a bot tries again after `STORE_RETRY_SECONDS`."""


#: What a host is told when their action could not be stored.
NOT_STORED = ("The umpire could not store that: the database did not answer. Nothing "
              "changed; please try again in a moment.")
#: What a player is told, where they typed, when their move could not be stored.
NOT_RECORDED = ("The umpire could not record that move: the database did not answer. "
                "Nothing was applied; please send it again.")
#: A clock that fell due or a bot's move whose write failed is tried again after this long.
STORE_RETRY_SECONDS = 2.0
#: What the host is told when the store could not take a new match (a full disk...).
NOT_STARTED = ("The match could not be started because the database could not store it "
               "(the bot's log says why); nothing was started, so try again in a moment.")


def store_error(exc: BaseException) -> bool:
    """Did the database (not the rules) fail: SQLAlchemy, the drivers, the disk, a lock?"""
    return isinstance(exc, SQLAlchemyError | sqlite3.Error | StoreUnavailable | OSError) or \
        type(exc).__module__.startswith("asyncpg")


def log_conflict(exc: BaseException) -> bool:
    """Whether the store refused a write because the stored log already has what it writes
    (an action or a clock of the same key: the match was written meanwhile by another
    process, so this one's memory of it is stale)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, IntegrityError) or type(cause).__name__ == "UniqueViolationError":
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def not_started(exc: BaseException) -> UmpireError:
    """A start the store failed, as the one sentence its host sees (the cause: in the log)."""
    log.error("could not store a new match", exc_info=exc)
    return UmpireError(NOT_STARTED)


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """A read the store could not answer becomes one sentence for the person who asked."""
    try:
        yield
    except StoreUnavailable as exc:
        raise UmpireError("The umpire cannot reach its database right now; please try again "
                          "in a moment.") from exc
