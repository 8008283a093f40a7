# The whist server: one process serving WebSocket (/ws), the web client and /health on one port.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
# server/rules/data and server/client_web are links to seeds/ and client_web/: the build copies the
# files they point to into the installed package, so the image needs no path or variable of its own.
COPY server ./server
COPY seeds ./seeds
COPY client_web ./client_web
RUN pip install --no-cache-dir . && rm -rf /app/server /app/seeds /app/client_web

EXPOSE 8765
# Listen on every interface inside the container; the store comes from WHIST_STORE, the archive from
# WHIST_ARCHIVE (default: an SQLite file in WHIST_DATA_DIR, inside the container).
ENV WHIST_STORE=memory://
ENV WHIST_DATA_DIR=/data
# The web client is package data: no --static-dir (the copies under /app are removed above).
# WHIST_TRUSTED_PROXY: the balancer's network, whose X-Forwarded-For gives the client's address.
CMD ["sh", "-c", "exec whist-server --host 0.0.0.0 --port 8765 --store \"$WHIST_STORE\" --replica-id \"${WHIST_REPLICA_ID:-$(hostname)}\" ${WHIST_ARCHIVE:+--archive \"$WHIST_ARCHIVE\"} ${WHIST_TRUSTED_PROXY:+--trusted-proxy \"$WHIST_TRUSTED_PROXY\"}"]
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/health', timeout=2).status == 200 else 1)"
