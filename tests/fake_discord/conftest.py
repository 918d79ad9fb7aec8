from .fixtures import fake_discord  # noqa: F401
