# umpire: the Discord bot. Build: docker build -t umpire .
# Run:   docker run -e DISCORD_TOKEN=... -v umpire-data:/data umpire
# With PostgreSQL (and a two-shard example): compose.yaml; README "Run it for your server".
FROM python:3.11-slim

# No config file is needed: every setting can come from the environment
# (UMPIRE_<SECTION>__<KEY>, DISCORD_TOKEN). A /data/config.toml is read when present.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    UMPIRE_DATABASE__URL=/data/umpire.db \
    UMPIRE_HEALTH__STATUS_FILE=/tmp/umpire-status.json

# Node.js runs JavaScript arena bots (umpire arena, play --bot bot.js); tini is PID 1: it
# passes `docker stop`'s SIGTERM on to umpire and reaps any orphaned process.
RUN apt-get update \
    && apt-get install -y --no-install-recommends nodejs tini \
    && rm -rf /var/lib/apt/lists/*

# A user without privileges; the database lives on the /data volume, which it owns.
RUN useradd --create-home --uid 10001 umpire \
    && mkdir /data && chown umpire:umpire /data

WORKDIR /app
# setup.py builds the arena's optional compiled core; this image has no C compiler, so the
# same code is installed in pure Python (the build's one-line note shows only with
# `pip install -v`; `umpire --version` in the image says "arena core: pure Python").
COPY pyproject.toml setup.py README.md ./
COPY bot ./bot
COPY games ./games
COPY migrations ./migrations
# the rules pages, which the build copies into the game packages (/rules reads them there)
COPY docs/rules ./docs/rules
RUN pip install ".[metrics]"

USER umpire
WORKDIR /data
VOLUME ["/data"]
# Metrics, when [metrics] port (UMPIRE_METRICS__PORT) is set to it.
EXPOSE 9100
# `docker stop` sends SIGTERM: the bot finishes the commands in progress, delivers its
# outbox, releases its shard leases, closes the database and exits 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=20s --start-period=60s --retries=3 \
    CMD ["umpire", "health"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["umpire", "run"]
