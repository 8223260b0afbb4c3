#!/bin/sh
# The image's entrypoint (under tini). With DB_MIGRATE_ON_START=1 it migrates and seeds first
# (both idempotent, so every start may ask); the server itself also migrates as it starts.
set -e
if [ "${DB_MIGRATE_ON_START:-0}" = 1 ]; then
  node_modules/.bin/tsx scripts/seed.ts
fi
exec "$@"
