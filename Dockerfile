# The service's container image. Build stage: all dependencies and tsc; final stage: production dependencies and
# the compiled dist/ only, run as the unprivileged "node" user with NODE_ENV=production. The image has no embedded
# database (no Go, no mongod): set MONGODB_URI (compose.yaml runs MongoDB next to it).
# Node 26, the active LTS, in the slim variant (Node 20 is past its end of life); docs/operations.md says which
# versions are supported and tested. The start uses Node's compile cache, in /tmp/node-compile-cache (dist/ is
# root's; the first start of a container writes the cache, later starts of that container use it).
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: none of the dependencies needs one (package.json's allowScripts denies each, with the reason),
# and the slim image has no toolchain for native rebuilds. `npm ci`: exactly the locked tree, or a failure when
# package.json and the lockfile disagree (the lockfile lists every platform's optional binaries, so it is complete).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY bench ./bench
RUN npm run build

FROM node:26-trixie-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
# Healthy while the database answers (GET /readyz); node's own fetch, so the slim image needs no curl.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# V8's young generation at 64 MB a half, as `npm start` sets it (docs/performance.md: young generation).
CMD ["node", "--max-semi-space-size=64", "dist/src/index.js"]
