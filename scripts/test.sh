#!/usr/bin/env bash
# Install everything the test suite needs, make sure Redis answers and Chromium is present, then run
# the whole suite. Extra arguments go to pytest. Exit status: pytest's, except that "no tests
# collected" (5) is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

redis_answers() {
  .venv/bin/python -c "import redis,sys; sys.exit(0 if redis.Redis(host='127.0.0.1', port=6379, socket_timeout=1).ping() else 1)" \
    >/dev/null 2>&1
}
if ! redis_answers; then
  echo "Redis is not answering on 127.0.0.1:6379: starting it"
  command -v redis-server >/dev/null || apt_install redis-server
  mkdir -p /tmp/whist-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp/whist-redis \
    --logfile /tmp/whist-redis/redis.log
  for _ in $(seq 50); do redis_answers && break; sleep 0.1; done
  redis_answers || { echo "Redis did not start" >&2; exit 1; }
fi

# The archive tests (tests/archive) need PostgreSQL on 127.0.0.1:5432 (trust authentication for
# the postgres user, as this machine kind has it): start the installed cluster if it is not answering.
# They fail, never skip, when it does not answer.
if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  cluster=$(pg_lsclusters --no-header 2>/dev/null | awk '$3 == 5432 {print $1, $2; exit}')
  if [ -n "$cluster" ]; then
    echo "PostgreSQL is not answering on 127.0.0.1:5432: starting cluster $cluster"
    # shellcheck disable=SC2086 (two words: version and name)
    as_root pg_ctlcluster $cluster start || true
    for _ in $(seq 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
  fi
  pg_isready -q -h 127.0.0.1 -p 5432 || echo "PostgreSQL does not answer: the archive tests will fail" >&2
fi

if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium for the browser tests"
  apt_install chromium
fi
# The cluster tests start a private redis-server and HAProxy in front of several server processes, and
# the Sentinel topology its own redis-sentinel processes (Debian packages sentinel apart).
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v redis-sentinel >/dev/null || [ -x /usr/bin/redis-sentinel ] || missing+=(redis-sentinel)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian's ${missing[*]} for the cluster tests"
  apt_install "${missing[@]}"
fi

# One pytest worker per core (pytest-xdist; PYTEST_WORKERS=0 runs in one process). Under loadgroup the
# conftest's own scheduler hands out the work (tests/conftest.py): the long modules first, the browser
# tests last in two groups, each group on one worker after that worker's other tests.
workers=${PYTEST_WORKERS:-auto}
parallel=()
[ "$workers" = "0" ] || parallel=(-n "$workers" --dist loadgroup)
set +e
.venv/bin/python -m pytest "${parallel[@]}" "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
