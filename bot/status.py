"""The statuses a match and a decision's clock go through, as stored.

`StrEnum`s: each member is the very string the store keeps and compares equal to it, so a
row read back as a plain string and a live match's status compare alike.
"""

from __future__ import annotations

from enum import StrEnum


class MatchStatus(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"  # by the hosts: every clock is stopped
    FINISHED = "finished"  # by the game's outcome, or awarded by the hosts
    ABORTED = "aborted"  # by the hosts, without a winner


#: A match still umpired (its clocks kept, its commands taken once active)...
RUNNING = (MatchStatus.ACTIVE, MatchStatus.PAUSED)
#: ...and one that is over.
ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)


class ClockStatus(StrEnum):
    ARMED = "armed"  # running towards its reminders and deadline
    BREAK = "break"  # starts when the break between two rounds ends
    DONE = "done"  # its decision was made (or the match ended)
    EXPIRED = "expired"  # over its limit with no timeout outcome: the hosts decide


#: The clocks a restart loads and runs again.
LIVE = (ClockStatus.ARMED, ClockStatus.BREAK)
