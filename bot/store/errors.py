"""The store's failures that the match service answers in words rather than a traceback."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """The database could not take a write within the time a move may wait (the file is
    locked by another process, the server is down or restarting): nothing was stored, and
    the caller's live state must stay exactly as it was. The service tells the player the
    move was not recorded; the store reconnects on its own for the next write."""
