# The dashboard as an image (docs/deploying.md#container). `docker compose up` runs it with
# PostgreSQL, two instances, a task worker and haproxy; alone it keeps SQLite under the volume /data.
# `npm run test:container` builds and checks this file with podman.

FROM node:20-bookworm-slim AS build
# better-sqlite3 and @node-rs/argon2 are native: a compiler for when no prebuilt binary is served,
# and Node's own headers (in the base image) rather than a download of them.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && find app db emails scripts -name '*.test.ts' -delete

FROM node:20-bookworm-slim
# tini as PID 1: SIGTERM reaches the server, which drains (DRAIN_MS) before it stops.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown node:node /data
WORKDIR /app
# The server runs from build/; the seed, migrate and worker commands run the TypeScript sources
# with tsx (a runtime dependency), so those sources come along.
COPY --from=build /app/package.json /app/package-lock.json /app/tsconfig.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/app ./app
COPY --from=build /app/db ./db
COPY --from=build /app/emails ./emails
COPY --from=build /app/scripts ./scripts
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=file:/data/app.db
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["tini", "--", "scripts/container/entrypoint.sh"]
CMD ["node", "--max-semi-space-size=32", "build/server.js"]
