# adsvc for server mode (DATABASE_URL + CLICKHOUSE_URL): the embedded chdb engine is not installed.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional leaves out chdb (543 MB) and also esbuild's platform binary (@esbuild/linux-x64 or
# -arm64, 11 MB), which `npm run build` needs for dist/adsvc.js: esbuild's install script then
# installs it itself (`npm install` of that package at esbuild's version, else a download from
# registry.npmjs.org; then it runs the binary and checks its version), so this step needs the
# registry for it as for every other package, and when the binary cannot be had the script fails and
# so does this step, never the image later (tried from the npm cache without a network: installed).
# npm ci refuses this lock file as out of sync (it lacks other platforms' optional builds of chdb,
# oxc-parser and rollup, which the registry it was made against does not carry; .ci/run says the
# same): npm install from the same lock then installs the locked versions, and --no-save keeps it.
RUN npm ci --omit=optional --no-audit --no-fund \
 || npm install --omit=optional --no-audit --no-fund --no-save
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY bench ./bench
RUN npm run build && npm prune --omit=dev --omit=optional

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json openapi.yaml ./
COPY bin ./bin
COPY migrations ./migrations
COPY clickhouse ./clickhouse
COPY public ./public
VOLUME /data
EXPOSE 8080
CMD ["node", "dist/adsvc.js", "serve"]
