# The whist server: one process serving WebSocket (/ws), the web client and /health on one port.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY seeds ./seeds
COPY client_web ./client_web
RUN pip install --no-cache-dir .

EXPOSE 8765
# Listen on every interface inside the container; the store comes from WHIST_STORE.
ENV WHIST_STORE=memory:// \
    WHIST_SEEDS_DIR=/app/seeds
CMD ["sh", "-c", "exec whist-server --host 0.0.0.0 --port 8765 --store \"$WHIST_STORE\" --static-dir /app/client_web --replica-id \"${WHIST_REPLICA_ID:-$(hostname)}\""]
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/health', timeout=2).status == 200 else 1)"
