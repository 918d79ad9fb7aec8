"""What the tests and the benches share and the wheel does not ship: the fake Discord
(fake_discord/) and a throwaway PostgreSQL server (pg_server.py)."""
