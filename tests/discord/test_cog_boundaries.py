"""The Discord side talks to the match service through its facade (bot/facade.py), read from
the sources: no module of bot/discord but the composition root reaches into the service's
match table or store, none but the root imports the store (`bot.store`, or the events'
`bot.tournament.store`), and no module of bot/ writes a Discord player id by hand
(`player_id()` does)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
DISCORD = BOT / "discord"
#: Where the bot is put together: it builds the service and hands the cogs its facade.
COMPOSITION_ROOT = {"client.py", "runner.py"}
#: May import the store: the composition root only (`umpire run --check`'s database lines
#: come from bot/health.py; events are read through the event runner).
STORE_IMPORTERS = COMPOSITION_ROOT
STORES = ("bot.store", "bot.tournament.store")


def _dotted(node: ast.AST) -> str:
    """`self.bot.service.matches` for an attribute chain ('' past a call or subscript)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def reaches_in(source: str) -> list[str]:
    """Uses of the service's match table, store or delivery (`<...>.service.matches`,
    `.service.delivery`, `.repo`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        owner = _dotted(node.value).rsplit(".", 1)[-1]
        if node.attr == "repo" or (node.attr in ("matches", "delivery") and owner == "service"):
            found.append(f"line {node.lineno}: {_dotted(node) or node.attr}")
    return found


def store_imports(source: str) -> list[str]:
    """Imports of the store (anywhere: module top, a function, `if TYPE_CHECKING`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        found += [f"line {node.lineno}: {n}" for n in names
                  if n in STORES or n.startswith(tuple(f"{s}." for s in STORES))]
        if isinstance(node, ast.ImportFrom) and node.module in ("bot", "bot.tournament") and \
                any(a.name == "store" for a in node.names):
            found.append(f"line {node.lineno}: from {node.module} import store")
    return found


def hand_made_ids(source: str) -> list[str]:
    """f-strings that begin with "discord:" (a player id written by hand)."""
    return [f"line {node.lineno}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.JoinedStr) and node.values
            and isinstance(node.values[0], ast.Constant)
            and str(node.values[0].value).startswith("discord:")]


def modules(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def test_the_checks_catch_what_they_look_for() -> None:
    """Each check finds the pattern it forbids (else the tests below could never fail)."""
    assert reaches_in("x = self.bot.service.matches.get(1)")
    assert reaches_in("e = service.repo.engine")
    assert reaches_in("await bot.service.repo.merge_transport(1, {})")
    assert reaches_in("bot.service.delivery.wake(1)")
    assert not reaches_in("x = self.bot.api.live(1)\ny = re.match('a', 'b')")
    assert store_imports("from bot.store.guilds import GuildStore")
    assert store_imports("def f():\n    import bot.store.repository")
    assert store_imports("from bot import store")
    assert store_imports("def f():\n    from bot.tournament import store")
    assert not store_imports("from bot.tournament import event\nfrom bot.facade import X")
    assert hand_made_ids('pid = f"discord:{user.id}"')
    assert not hand_made_ids('pid = player_id(user.id)\ns = f"{DISCORD_PREFIX}{x}"')


def test_no_cog_reaches_into_the_service() -> None:
    """Only the composition root touches `service.matches`, `.repo` or `.delivery`; every other
    module of bot/discord (cogs, transport, helpers) asks the facade."""
    bad = {str(p.relative_to(BOT)): hits for p in modules(DISCORD)
           if p.name not in COMPOSITION_ROOT and (hits := reaches_in(p.read_text()))}
    assert bad == {}


def test_no_cog_imports_the_store() -> None:
    """The store's types a cog names come from the facade."""
    bad = {str(p.relative_to(BOT)): hits for p in modules(DISCORD)
           if p.name not in STORE_IMPORTERS and (hits := store_imports(p.read_text()))}
    assert bad == {}


def test_player_ids_are_made_in_one_place() -> None:
    """No module of bot/ writes f"discord:{...}": `bot.discord.render.player_id` does."""
    bad = {str(p.relative_to(BOT)): hits for p in modules(BOT)
           if (hits := hand_made_ids(p.read_text()))}
    assert bad == {}
