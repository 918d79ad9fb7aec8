"""A database failure in words: one sentence naming the database (its password hidden) and
the exit code it calls for. The command line (bot/cli.py) and the health checks
(bot/health.py) both use it. Its imports wait until a failure is worded, so that importing
it costs nothing.
"""

from __future__ import annotations


def database_problem(exc: BaseException, url: str) -> tuple[str, int] | None:
    """A database failure as (one sentence naming the database, exit code): 2 for a setting
    to fix (a URL, a path, a password, a missing driver), 1 for an outage (the server down,
    the file locked). None: not a database failure."""
    import sqlite3

    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from bot.store.database import DatabaseURLError, is_sqlite, unreachable
    from bot.store.errors import StoreUnavailable

    shown = _shown(url)
    # the service's "cannot reach its database right now" wraps the store's StoreUnavailable
    cause = exc.__cause__ if isinstance(exc.__cause__, StoreUnavailable) else exc
    if isinstance(cause, DatabaseURLError):
        return str(cause), 2
    if isinstance(cause, ArgumentError | NoSuchModuleError):
        return _bad_url(url), 2
    if isinstance(cause, ImportError):  # a driver named in the URL that is not installed
        return (f"the database {shown} needs the Python package {cause.name!r}, which is not "
                "installed; use postgresql://... or a file path (the drivers installed with "
                "the bot)."), 2
    try:
        sqlite = is_sqlite(url)
    except Exception:
        sqlite = False
    why = scrubbed(first_line(cause), url)
    if sqlite and (isinstance(cause, StoreUnavailable) or "database is locked" in why):
        return (f"the database {shown} is locked by another program ({why}); try again when "
                "it is done."), 1
    if isinstance(cause, StoreUnavailable) or (not sqlite and unreachable(cause)):
        return (f"the database {shown} cannot be reached ({why}); check that the server is "
                "running and the address is right, then try again."), 1
    if isinstance(cause, SQLAlchemyError | sqlite3.Error | OSError) or \
            type(cause).__module__.startswith("asyncpg"):
        return f"the database {shown} cannot be used: {why}.", 2
    return None


def first_line(exc: BaseException) -> str:
    """The failure's message, its first line only (the driver's own, when wrapped)."""
    orig = getattr(exc, "orig", None)
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    else:
        text = str(orig if isinstance(orig, BaseException) else exc) or type(exc).__name__
    text = text.splitlines()[0].rstrip(".")
    return text.removeprefix("the database server cannot be reached: ")


def scrubbed(text: str, url: str) -> str:
    """A driver's error message with the URL's password (if it appears) replaced by ***."""
    from sqlalchemy.engine import make_url

    try:
        password = make_url(url).password
    except Exception:
        password = None
    text = text.replace(url, _shown(url))
    return text.replace(str(password), "***") if password else text


def _bad_url(url: str) -> str:
    from bot.store.database import SUPPORTED

    return f"{_shown(url)!r} is not a database this bot can use: give {SUPPORTED}."


def _shown(url: str) -> str:
    from bot.store.database import shown_url

    return shown_url(url)
