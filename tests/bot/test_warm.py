"""The games' large tables are built when the service starts, off the event loop: no
player's move pays for them (Decoder's word list took a quarter of a second on the loop,
and its bots' vocabulary a second more, the first time a match needed them)."""

from __future__ import annotations

import threading

from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService
from games.decoder import vocabulary, wordlist
from games.registry import warm_games
from tests.support.transport import RecordingTransport


async def test_start_builds_decoder_word_list_and_bot_vocabulary_in_a_thread(sqlite_url,
                                                                             monkeypatch):
    warm_games.cache_clear()
    wordlist._load.cache_clear()
    vocabulary.bot_words.cache_clear()
    loaded_on: list[str] = []
    real_read = wordlist._read

    def read(path):  # type: ignore[no-untyped-def]
        loaded_on.append(threading.current_thread().name)
        return real_read(path)

    monkeypatch.setattr(wordlist, "_read", read)
    engine = create_engine(sqlite_url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    try:
        assert wordlist._load.cache_info().currsize == 1, "the word list was read at start"
        assert vocabulary.bot_words.cache_info().currsize == 1, "and the bots' words built"
        assert loaded_on and threading.main_thread().name not in loaded_on, \
            "read off the event loop's thread"
        # the first guess of a Decoder match reads nothing more
        wordlist.load_words()
        assert len(loaded_on) == 1
    finally:
        await service.stop()
        await engine.dispose()
