"""The documentation stands alone: every page says in its own words what the bot applies.

- No page (docs/**/*.md, README.md) points at files outside the repository (the project's
  working notes `../shared/...`: seeds, rulings, design).
- Every game's rules page carries the "All games" rulings: salted seed commitment and reveal
  (a host-chosen seed makes the match unrated), hosts
  may pause any timer, downtime never charged, first valid submission final unless the game
  says otherwise, private choices typed in public deleted and not applied.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"])
RULES_PAGES = sorted(ROOT.glob("docs/rules/*.md"))
OUTSIDE = re.compile(r"shared/|RULINGS\.md|DESIGN\.md|seeds/[0-9]")

#: One phrase per "All games" ruling; each must be in the section of every rules page.
ALL_GAMES_RULINGS = {
    "advantage named by the host": "the host names the player who holds the advantage",
    "seeded chance": "match's own seeded generator",
    "seed commitment": "SHA-256 commitment of a secret random salt (128 bits) together with "
                       "the seed",
    "seed revealed": "it reveals the seed and the salt",
    "host-chosen seed": "A seed chosen by a host makes the match unrated",
    "hosts pause any timer": "Hosts may pause any timer at any time",
    "downtime never charged": "never charged to a",
    "last valid submission only where the game says": "last valid submission counts",
    "first valid submission final": "the first valid submission is final",
    "private choice in own table": "accepted only in the submitter's",
    "private choice in public": "typed in the public game room is not applied",
    "deleted": "deletes the message",
}


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return re.sub(r"\s+", " ", match.group(1)) if match else ""


def test_the_pages_exist() -> None:
    assert ROOT / "README.md" in PAGES and len(RULES_PAGES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_points_outside_the_repository(page: Path) -> None:
    found = [line.strip() for line in page.read_text(encoding="utf-8").splitlines()
             if OUTSIDE.search(line)]
    assert not found, f"{page.name} refers to files outside the repository: {found}"


@pytest.mark.parametrize("page", RULES_PAGES, ids=lambda p: p.name)
def test_every_rules_page_states_the_all_games_rulings(page: Path) -> None:
    section = _section(page.read_text(encoding="utf-8"), "All games")
    assert section, f"{page.name} has no '## All games' section"
    missing = [name for name, phrase in ALL_GAMES_RULINGS.items() if phrase not in section]
    assert not missing, f"{page.name}'s All games section lacks: {missing}"
