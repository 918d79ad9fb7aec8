"""Tournament formats: pure, deterministic, JSON-storable (see `base.Format`)."""
