# syntax=docker/dockerfile:1
# Holdfast's image: built with the dev dependencies, run with the production ones and dist/ alone.
#   docker build -t holdfast .
#   docker run -d --name holdfast -e DISCORD_TOKEN -e OPENAI_API_KEY -v holdfast-data:/data --stop-timeout 90 holdfast
# docs/production.md says more.

ARG NODE_VERSION=22

# The build: every dependency, TypeScript included; `npm pack` runs prepack (the build into dist/)
# and makes the tarball the last stage installs, as any production install does.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No scripts yet: prepare would build before the sources are here, and the build needs no native module.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json config.schema.json config.example.yml README.md ./
COPY scripts/build.ts ./scripts/build.ts
COPY src ./src
RUN npm pack --pack-destination /tmp && mv /tmp/holdfast-*.tgz /tmp/holdfast.tgz

# The run: the tarball installed with production dependencies only. better-sqlite3 downloads its
# native module, or builds it when none fits: the compilers it would need are removed in the same
# layer, so the image keeps none of them.
FROM node:${NODE_VERSION}-bookworm-slim AS run
WORKDIR /app
COPY --from=build /tmp/holdfast.tgz /tmp/holdfast.tgz
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini python3 make g++ \
  && echo '{ "private": true, "allowScripts": { "better-sqlite3": true } }' > package.json \
  && npm install --omit=dev --no-audit --no-fund /tmp/holdfast.tgz \
  && npm cache clean --force \
  && apt-get purge -y --auto-remove python3 make g++ \
  && rm -rf /var/lib/apt/lists/* /tmp/holdfast.tgz
COPY deploy/config.yml /etc/holdfast/config.yml
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production \
  HOLDFAST_CONFIG=/etc/holdfast/config.yml \
  PATH=/app/node_modules/.bin:$PATH
# The store, and any relative path of a mounted configuration, live in the volume.
VOLUME /data
WORKDIR /data
USER node
# /metrics, /healthz and /readyz (metrics.listen in /etc/holdfast/config.yml).
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini runs as PID 1: it hands SIGTERM to node, which suspends running turns with their work kept
# and exits 0, and it reaps the processes MCP servers leave behind.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "holdfast"]
