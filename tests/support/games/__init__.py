"""Helpers the games tests share: building states, playing moves, reading events."""
