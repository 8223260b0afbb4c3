#!/bin/sh
# No registry serves base images on these machines, so `npm run test:container` assembles local
# stand-ins under the official names the Dockerfile and compose.yaml use: Debian bookworm (minbase,
# by mmdebstrap) plus this machine's Node 20 and npm for node:20-bookworm-slim, plus Debian's
# packages for postgres:15-bookworm and haproxy:2.6-bookworm. Images already present are kept;
# STAND_INS_REBUILD=1 assembles them again.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
podman=${PODMAN:-podman}
rebuild=${STAND_INS_REBUILD:-0}

present() { [ "$rebuild" != 1 ] && $podman image exists "$1"; }

if ! present localhost/bookworm-minbase:latest; then
  mmdebstrap --quiet --variant=minbase bookworm - http://deb.debian.org/debian \
    | $podman import - localhost/bookworm-minbase:latest >/dev/null
fi

if ! present docker.io/library/node:20-bookworm-slim; then
  node=$(readlink -f "$(command -v node)")
  prefix=$(dirname "$(dirname "$node")")
  case "$(node --version)" in v20.*) ;; *) echo "stand-ins: the machine's node is not 20" >&2; exit 1 ;; esac
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  cp "$node" "$context/node"
  cp -r "$prefix/lib/node_modules/npm" "$context/npm"
  cp -r "$prefix/include/node" "$context/include"
  # The machine's trusted authorities (an empty file where Node trusts its own list only).
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
    cp "$NODE_EXTRA_CA_CERTS" "$context/ca-bundle.crt"
  else
    : > "$context/ca-bundle.crt"
  fi
  $podman build --quiet --network host -f "$here/stand-ins/node.Containerfile" \
    -t docker.io/library/node:20-bookworm-slim "$context" >/dev/null
fi

if ! present docker.io/library/postgres:15-bookworm; then
  $podman build --quiet --network host -f "$here/stand-ins/postgres.Containerfile" \
    -t docker.io/library/postgres:15-bookworm "$here/stand-ins" >/dev/null
fi

if ! present docker.io/library/haproxy:2.6-bookworm; then
  $podman build --quiet --network host -f "$here/stand-ins/haproxy.Containerfile" \
    -t docker.io/library/haproxy:2.6-bookworm "$here/stand-ins" >/dev/null
fi
