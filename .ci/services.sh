# Sourced by .ci/run: installs (only if missing) and starts what the ecosystem tests need, and
# exports the variables that switch those tests on. Without these variables the tests skip, so a
# developer without PostgreSQL or Chromium can still run ./mvnw -B verify.
#
#   FEATURESTORE_TEST_POSTGRES_URL / _USER / _PASSWORD  PostgreSQL catalog tests
#   FEATURESTORE_TEST_CHROMIUM                           dashboard rendering test
#   FEATURESTORE_TEST_JBANG=1                            JBang script check (examples module)
#
# PostgreSQL runs as the postgres user from a fresh data directory under /tmp, bound to
# 127.0.0.1 only, and is stopped again when .ci/run exits (only the server started here).

ci_apt_install() {
  # $@: packages; installs the missing ones, quietly
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "services: not root, cannot install ${missing[*]}: the tests that need them will skip" >&2
      return 1
    fi
    echo "services: installing ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

ci_start_postgres() {
  ci_apt_install postgresql || return 0
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -x "$bin/initdb" ] || { echo "services: no initdb found" >&2; return 0; }
  local port="${FEATURESTORE_CI_PG_PORT:-54329}"
  CI_PG_DIR="$(mktemp -d /tmp/featurestore-ci-pg.XXXXXX)"
  chown postgres:postgres "$CI_PG_DIR"
  local pw="ci-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
  su postgres -s /bin/sh -c "'$bin/initdb' -D '$CI_PG_DIR/data' -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >'$CI_PG_DIR/initdb.log' 2>&1" \
    || { echo "services: initdb failed, see $CI_PG_DIR/initdb.log" >&2; return 0; }
  su postgres -s /bin/sh -c "'$bin/pg_ctl' -D '$CI_PG_DIR/data' -l '$CI_PG_DIR/server.log' -w -t 60 \
      -o \"-c listen_addresses=127.0.0.1 -p $port -k $CI_PG_DIR -c max_connections=50 -c fsync=off\" start >/dev/null" \
    || { echo "services: PostgreSQL did not start, see $CI_PG_DIR/server.log" >&2; return 0; }
  CI_PG_BIN="$bin"
  trap ci_stop_postgres EXIT
  su postgres -s /bin/sh -c "psql -q -h '$CI_PG_DIR' -p $port -U postgres -d postgres \
      -c \"CREATE USER featurestore PASSWORD '$pw'\" -c 'CREATE DATABASE featurestore OWNER featurestore'" >/dev/null
  export FEATURESTORE_TEST_POSTGRES_URL="jdbc:postgresql://127.0.0.1:$port/featurestore"
  export FEATURESTORE_TEST_POSTGRES_USER=featurestore
  export FEATURESTORE_TEST_POSTGRES_PASSWORD="$pw"
  echo "services: PostgreSQL on 127.0.0.1:$port"
}

ci_stop_postgres() {
  if [ -n "${CI_PG_DIR:-}" ] && [ -n "${CI_PG_BIN:-}" ]; then
    su postgres -s /bin/sh -c "'$CI_PG_BIN/pg_ctl' -D '$CI_PG_DIR/data' -m fast -w stop >/dev/null 2>&1" || true
    rm -rf "$CI_PG_DIR"
  fi
}

ci_find_chromium() {
  ci_apt_install chromium || return 0
  if [ -x /usr/bin/chromium ]; then
    export FEATURESTORE_TEST_CHROMIUM=/usr/bin/chromium
    echo "services: Chromium at /usr/bin/chromium"
  fi
}

ci_start_postgres
ci_find_chromium
export FEATURESTORE_TEST_JBANG=1
