"""Shared fixtures: the toy game is registered for runtime tests."""

from __future__ import annotations

from tests.support.register import register_duel

register_duel()
