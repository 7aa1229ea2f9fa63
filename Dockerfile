# syntax=docker/dockerfile:1
# Campaign API image: the HTTP API (which also runs the delivery worker unless RUN_WORKER=false).
# On start, dist/main.js creates the database named in DATABASE_URL if needed and applies
# pending migrations, then listens on HOST:PORT (HOST must be 0.0.0.0 in a container).
#
# The image runs `node dist/*.js` directly: `npm start` and `npm run cli` first call
# scripts/build-if-needed.cjs, which needs devDependencies that are not installed here.
# The CLI inside the container:   docker compose exec app node dist/cli.js account create --name Acme
# A separate worker process:      node dist/worker.js (with RUN_WORKER=false on the API)

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The dashboard's browser app is an npm workspace (web/): its manifest joins the install.
COPY web/package.json ./web/
RUN npm ci --loglevel=warn --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx nest build
# The browser app, built into dist/dashboard/ (served at /dashboard/).
COPY web ./web
RUN npm run --workspace web build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Without web/ here, the workspace's packages (React, Vite, …) are not installed: the image
# serves the app's built files only.
RUN npm ci --omit=dev --loglevel=warn --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The young generation capped at 16 MiB semi-spaces: docs/operations.md#memory.
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=10", "dist/main.js"]
