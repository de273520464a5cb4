# The Gin Rummy server image. A build stage (it has a C compiler) makes the wheel from the sources:
# the wheel carries the migrations, the rule presets and the web client, and the hot paths
# compiled with mypyc (setup.py). The final image installs only that wheel.
FROM python:3.11 AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md alembic.ini ./
COPY server ./server
COPY migrations ./migrations
COPY seeds ./seeds
COPY clients/web ./clients/web
RUN GINRUMMY_COMPILE=1 pip wheel --no-cache-dir --no-deps --wheel-dir /wheels /src

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels && useradd --create-home gin && mkdir -p /app/data && chown gin /app/data
WORKDIR /app
USER gin
ENV GINRUMMY_HOST=0.0.0.0 GINRUMMY_PORT=8080
EXPOSE 8080
# The SQLite database (the default, ./data/ginrummy.db) lives here: mount a volume on it, or it
# goes with the container. (On Postgres nothing is written here.)
VOLUME /app/data
# The port the server really listens on, should GINRUMMY_PORT be changed at run time.
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import os,urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GINRUMMY_PORT', '8080'), timeout=2)" || exit 1
CMD ["python", "-m", "server"]
