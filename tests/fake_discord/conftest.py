from tests.support.fake_world import world  # noqa: F401

from .fixtures import fake_discord  # noqa: F401
