# ome-ranker image: the service under gunicorn, non-root, listening on 0.0.0.0:8080, and the
# `ome-ranker` command (a CI step: docker run --rm -v "$PWD:/src" ome-ranker:0.2.0 ome-ranker
# lint -R -f /src). Tagged with app/version.py's version, as deploy/kubernetes names it:
#   docker build -t ome-ranker:0.2.0 .   (docker-compose.yml builds it with a Redis beside it)
# Two stages: the build stage's pip and its caches never reach the image; only the virtualenv
# with the runtime dependencies (requirements.txt, no dev tools) does.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
COPY requirements.txt /tmp/requirements.txt
RUN /opt/venv/bin/pip install --no-cache-dir -r /tmp/requirements.txt
# The project itself, so the image has the `ome-ranker` command (the sync CronJob runs
# `ome-ranker push`); its dependencies are the pins above, already installed.
COPY pyproject.toml /tmp/src/pyproject.toml
COPY requirements.txt /tmp/src/requirements.txt
COPY app /tmp/src/app
COPY config /tmp/src/config
COPY migrations /tmp/src/migrations
RUN /opt/venv/bin/pip install --no-cache-dir --no-deps /tmp/src && rm -rf /tmp/src


FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    OME_RANKER_BIND=0.0.0.0:8080
RUN groupadd --system --gid 10001 ome-ranker \
    && useradd --system --uid 10001 --gid ome-ranker --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin ome-ranker
COPY --from=build /opt/venv /opt/venv
WORKDIR /srv/ome-ranker
# .dockerignore lets through only app/, config/, migrations/, requirements.txt and
# pyproject.toml; the files
# stay root-owned and read-only for the service user.
COPY . .
USER 10001:10001
EXPOSE 8080
# Liveness only (no Redis): the image has no curl, so Python asks /healthz on the bound port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ['OME_RANKER_BIND'].rpartition(':')[2]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=2)"]
# On SIGTERM the service drains (/readyz 503, still answering) for OME_RANKER_DRAIN_SECONDS (5 s),
# then finishes what it holds within OME_RANKER_GRACEFUL_TIMEOUT (20 s): stop timeouts must be longer.
STOPSIGNAL SIGTERM
CMD ["gunicorn", "--config", "config/gunicorn.conf.py", "app:create_app()"]
