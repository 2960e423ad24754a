# Referee API image: slim Python, non-root user, migrations then uvicorn on 0.0.0.0:8000
# (REFEREE_WORKERS server processes; more than one needs PostgreSQL, see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    REFEREE_DATABASE_URL=sqlite:////data/referee.db \
    REFEREE_WORKERS=1

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY scenarios ./scenarios
RUN pip install . \
    && useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

USER referee
EXPOSE 8000
CMD ["sh", "-c", "referee migrate && referee serve --host 0.0.0.0 --port 8000"]
