#!/bin/sh
# The official image's entrypoint, reduced to what compose.yaml relies on.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pwfile"
  initdb --username="${POSTGRES_USER:-postgres}" --pwfile="$pwfile" --auth=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db=${POSTGRES_DB:-${POSTGRES_USER:-postgres}}
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    PGPASSWORD="$POSTGRES_PASSWORD" createdb -h /var/run/postgresql -U "${POSTGRES_USER:-postgres}" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
if [ "$1" = postgres ]; then shift; exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"; fi
exec "$@"
