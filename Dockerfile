# probekit image: the `probekit` command, serving the assistant's skills by default; built from the repository root with
#   docker build -t probekit .
# (the exporter's image is exporter/Dockerfile). Stage 1 installs the locked dependencies of the root package and of
# the workspaces it publishes, and packs them as they are published (packaging/pack.mjs); stage 2 installs the packs
# (probekit, @probekit/exporter, @probekit/assistant) with their production dependencies only (no cdk8s peers: the
# skills server needs none), the way a user installs them, and runs as the image's unprivileged `node` user. Nothing
# is written at run time, so a read-only root filesystem works.

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json README.md ./
COPY exporter/package.json exporter/tsconfig.build.json exporter/build.mjs exporter/blackbox.yml exporter/LICENSE exporter/
COPY assistant/package.json assistant/tsconfig.build.json assistant/
COPY stacks/package.json stacks/
# The root package and the workspaces it packs; no package this build needs runs an install script.
RUN npm ci --no-audit --no-fund --ignore-scripts --include-workspace-root --workspace @probekit/exporter --workspace @probekit/assistant
COPY exporter/src exporter/src
COPY assistant/src assistant/src
COPY src src
COPY packaging packaging
# The exporter's contract and the library first: each package's declarations name the others' by package name.
RUN npm run build:contract --workspace @probekit/exporter \
 && npx tsc -p tsconfig.build.json \
 && node packaging/pack.mjs --out /packs

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production
WORKDIR /opt/probekit
COPY --from=build /packs /tmp/packs
RUN npm init --yes >/dev/null \
 && npm install --omit=dev --omit=peer --no-audit --no-fund /tmp/packs/*.tgz \
 && rm -rf /tmp/packs /root/.npm
ENV PATH=/opt/probekit/node_modules/.bin:$PATH
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["probekit"]
CMD ["assistant", "serve", "--http", "8080", "--host", "0.0.0.0", "--http-token-env", "PROBEKIT_MCP_TOKEN"]
