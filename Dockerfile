# umpire: the Discord bot. Build: docker build -t umpire .
# Run:   docker run -e DISCORD_TOKEN=... -v umpire-data:/data umpire
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    UMPIRE_DATABASE__URL=sqlite+aiosqlite:////data/umpire.db \
    UMPIRE_CONFIG=/data/config.toml

RUN useradd --create-home --uid 10001 umpire \
    && mkdir /data && chown umpire:umpire /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY games ./games
COPY migrations ./migrations
RUN pip install .

USER umpire
VOLUME ["/data"]
CMD ["umpire", "run"]
