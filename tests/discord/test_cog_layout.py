"""The Discord layer's layout: every cog class lives in bot/discord/cogs/, which holds
nothing but cogs and their `setup`; library modules beside it never import a cog module; and
no two modules under bot/discord/ share a file name (a name says which module it is)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from bot.discord.cogs import EXTENSIONS

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "bot" / "discord"
COGS = LAYER / "cogs"


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def is_cog(node: ast.ClassDef) -> bool:
    """A class deriving from `commands.Cog` (or `Cog`)."""
    return any(isinstance(b, ast.Attribute) and b.attr == "Cog" or
               isinstance(b, ast.Name) and b.id == "Cog" for b in node.bases)


def imported(module: ast.Module) -> set[str]:
    """Every module an import statement of `module` names (in functions too)."""
    out: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_no_two_modules_of_the_layer_share_a_name() -> None:
    names = Counter(p.name for p in LAYER.rglob("*.py") if p.name != "__init__.py")
    assert len(names) > 40
    assert not [n for n, count in names.items() if count > 1]


def test_every_cog_class_lives_in_the_cogs_package() -> None:
    found = {(p.relative_to(ROOT).as_posix(), node.name)
             for p in (ROOT / "bot").rglob("*.py") for node in ast.walk(tree(p))
             if isinstance(node, ast.ClassDef) and is_cog(node)}
    assert len(found) == len(EXTENSIONS)
    assert {path for path, _ in found} == \
        {f"{name.replace('.', '/')}.py" for name in EXTENSIONS}


def test_the_cogs_package_holds_only_cogs_and_their_setup() -> None:
    """At the top of each cog module: imports, constants and statements (the autocomplete
    hooks of a cog's commands), its cog class and `setup`; no other function or class."""
    modules = sorted(p for p in COGS.glob("*.py") if p.name != "__init__.py")
    assert [f"bot.discord.cogs.{p.stem}" for p in modules] == sorted(EXTENSIONS)
    for path in modules:
        body = tree(path).body
        classes = [n for n in body if isinstance(n, ast.ClassDef)]
        functions = [n.name for n in body if isinstance(n, ast.FunctionDef |
                                                       ast.AsyncFunctionDef)]
        assert len(classes) == 1 and is_cog(classes[0]), path.name
        assert functions == ["setup"], path.name


def test_library_modules_import_no_cog_module() -> None:
    """Only the package's EXTENSIONS (for the bot to load them by name), never a cog module:
    `load_extension` executes a cog module anew, so a library holding on to one would hold a
    copy the bot does not run."""
    cog_modules = set(EXTENSIONS)
    for path in LAYER.rglob("*.py"):
        if path.parent == COGS:
            continue
        assert not imported(tree(path)) & cog_modules, path.relative_to(ROOT)
