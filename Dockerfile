# The Gin Rummy server image: the package installed (not editable) from the sources copied to
# /src, then removed; its wheel carries the migrations, the rule presets and the web client.
FROM python:3.11-slim
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md alembic.ini ./
COPY server ./server
COPY migrations ./migrations
COPY seeds ./seeds
COPY clients/web ./clients/web
RUN cd / && pip install --no-cache-dir /src && rm -rf /src && useradd --create-home gin && mkdir -p /app/data && chown gin /app/data
WORKDIR /app
USER gin
ENV GINRUMMY_HOST=0.0.0.0 GINRUMMY_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)" || exit 1
CMD ["python", "-m", "server"]
