"""An ended match's record carries the game's declared reveal (`contract.Reveals`, the text
the spectator feed's last message shows); the transcript shows it with the players' names,
and `umpire verify` checks it against the replay. A running match's record has none."""

from __future__ import annotations

import asyncio
import copy
import io
import json
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from bot.console.records import transcript
from games.core.feed import end_reveal
from games.registry import get_game


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from bot.console.demo import run_demo

    db = tmp_path_factory.mktemp("reveal") / "d.db"
    asyncio.run(run_demo(["renounce-fate"], 3, quiet=True, db=str(db), out=io.StringIO()))
    out = db.parent / "r.json"
    assert cli_main(["export", "1", "--db", str(db), "-o", str(out)]) == 0
    return json.loads(out.read_text())


def _verify(data: dict, tmp_path: Path, capsys) -> tuple[int, str]:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli_main(["verify", str(path)])
    return code, capsys.readouterr().err


def test_the_record_s_reveal_is_the_game_s_and_the_transcript_shows_it(record: dict) -> None:
    game = get_game(record["game"])
    assert record["reveal"].startswith("🔓")
    names = [p["name"] for p in record["players"]]
    text = transcript(record)
    tail = text.split("Revealed at the end of the match:\n", 1)[1]
    assert "{P0}" not in tail and names[0] in tail and names[1] in tail
    assert type(game).reveals is not None


def test_verify_checks_the_reveal_against_the_replay(record: dict, tmp_path: Path,
                                                     capsys) -> None:
    code, err = _verify(record, tmp_path, capsys)
    assert code == 0, err
    forged = copy.deepcopy(record)
    forged["reveal"] = "🔓 Every round ended at a showdown: no hand was left unshown."
    if forged["reveal"] == record["reveal"]:
        forged["reveal"] = "🔓 The hands the match left unshown:\nRound 1 (a fold): {P0} 🟥1."
    code, err = _verify(forged, tmp_path, capsys)
    assert code == 1 and "reveal at the end of the record is not what the replay" in err, err


def test_a_running_match_reveals_nothing() -> None:
    game = get_game("renounce-fate")
    state = game.setup(game.settings_model(), "running")
    assert end_reveal(game, state, False) is None
