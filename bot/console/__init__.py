"""The match service in a terminal: play locally, or watch bots play (no Discord needed)."""
