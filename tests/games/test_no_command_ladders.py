"""No engine branches on a command's class: dispatch goes through the tables a game declares
on its `Game` (`answers`, `checks`, `applies`, `refusals`, `timeouts`), so every game is
read, and refuses, the same way.

An AST check over every module of games/: no `isinstance(x, C)`, `issubclass(x, C)`,
`type(x) is C` or `case C(...)` whose `C` is a `Command` subclass. The one exception is the
contract's own `Timeout` inside games/core (the contract and its harness route a clock's
expiry there).
"""

from __future__ import annotations

import ast
import importlib
from types import ModuleType

import pytest

from games.core.contract import Command, Timeout
from games.registry import all_games
from tests.support.import_graph import ROOT, modules

GAMES = ROOT / "games"


def _resolve(node: ast.expr, module: ModuleType) -> list[object]:
    """The objects a class expression names in `module` (a name, a dotted name or a tuple of
    them); nothing for what only runs inside a function (a local variable)."""
    if isinstance(node, ast.Tuple):
        return [obj for element in node.elts for obj in _resolve(element, module)]
    if isinstance(node, ast.Name):
        return [module.__dict__[node.id]] if node.id in module.__dict__ else []
    if isinstance(node, ast.Attribute):
        owners = _resolve(node.value, module)
        return [getattr(o, node.attr) for o in owners if hasattr(o, node.attr)]
    return []


def _class_tests(tree: ast.Module) -> list[tuple[int, ast.expr]]:
    """(line, class expression) of every test of a value's class in the module."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            found.append((node.lineno, node.args[1]))
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
              and isinstance(node.left.func, ast.Name) and node.left.func.id == "type"):
            found.extend((node.lineno, c) for c in node.comparators)
        elif isinstance(node, ast.MatchClass):
            found.append((node.lineno, node.cls))
    return found


def ladders(name: str, module: ModuleType, source: str) -> list[str]:
    """Where module `name` (loaded as `module`, from `source`) tests a value against a
    command class, as "module:line Class"."""
    allowed = {Timeout} if name.startswith("games.core.") else set()
    out = []
    for line, expr in _class_tests(ast.parse(source)):
        for obj in _resolve(expr, module):
            if isinstance(obj, type) and issubclass(obj, Command) and obj not in allowed:
                out.append(f"{name}:{line} {obj.__name__}")
    return out


def test_no_module_of_games_branches_on_a_command_class() -> None:
    found = [hit for name, path in modules(GAMES).items()
             for hit in ladders(name, importlib.import_module(name), path.read_text())]
    assert found == [], ("branches on a command's class (declare the game's tables "
                         f"instead: answers, checks, applies, refusals, timeouts): {found}")


def test_every_engine_is_read() -> None:
    """The check walks every game's engine and the package it dispatches through."""
    names = set(modules(GAMES))
    engines = {type(game).__module__ for game in all_games().values()
               if type(game).__module__.startswith("games.")}
    assert engines and engines <= names, engines - names


class Bet(Command):
    pass


class Fold(Command):
    pass


class View:
    pass


def _toy(name: str) -> ModuleType:
    module = ModuleType(name)
    commands = ModuleType("commands")
    commands.Bet = Bet  # type: ignore[attr-defined]
    module.__dict__.update(Bet=Bet, Fold=Fold, View=View, Timeout=Timeout, commands=commands)
    return module


@pytest.mark.parametrize("source, found", [
    ("if isinstance(command, Bet):\n    pass\n", ["Bet"]),
    ("if isinstance(command, (Fold, View)):\n    pass\n", ["Fold"]),
    ("ok = type(command) is commands.Bet\n", ["Bet"]),
    ("ok = issubclass(type(command), Bet)\n", ["Bet"]),
    ("match command:\n    case Bet(amount=1):\n        pass\n", ["Bet"]),
    ("ok = isinstance(command, Timeout)\n", ["Timeout"]),  # a game's own module
    ("ok = isinstance(view, View) and isinstance(n, int)\n", []),
    ("def f(kind):\n    return isinstance(command, kind)\n", []),  # a local: not known
])
def test_the_check_finds_each_way_of_testing_a_command_class(source: str,
                                                             found: list[str]) -> None:
    assert [hit.split()[-1] for hit in ladders("games.toy.engine", _toy("games.toy.engine"),
                                               source)] == found


def test_the_contracts_own_timeout_is_allowed_in_games_core_only() -> None:
    source = "ok = isinstance(command, Timeout) or isinstance(command, Bet)\n"
    assert ladders("games.core.toy", _toy("games.core.toy"), source) == ["games.core.toy:1 Bet"]
