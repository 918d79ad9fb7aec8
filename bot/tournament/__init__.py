"""Tournaments ("events"): many matches of one game, run by the bot round after round.

`formats/` holds the pure pairing logic (no Discord, no database, no clock); the event
runtime that starts each round's matches, stores the event and reacts to a match's end
builds on it.
"""
