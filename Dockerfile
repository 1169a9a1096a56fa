# probekit image: the `probekit` command, serving the assistant's skills by default; built from the repository root with
#   docker build -t probekit .
# (the exporter's image is exporter/Dockerfile). Stage 1 installs the locked dependencies of the root package, of the
# exporter's contract and of the assistant, builds the three and packs them as npm publishes them; stage 2 installs
# the three packs with their production dependencies only (no cdk8s peers: the skills server needs none), the way a
# user installs probekit with its assistant, and runs as the image's unprivileged `node` user. Nothing is written at
# run time, so a read-only root filesystem works.

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY exporter/package.json exporter/tsconfig.build.json exporter/
COPY assistant/package.json assistant/tsconfig.build.json assistant/
COPY stacks/package.json stacks/
# The root package and the exporter and assistant workspaces only; no package this build needs runs an install script.
RUN npm ci --no-audit --no-fund --ignore-scripts --include-workspace-root --workspace @probekit/exporter --workspace @probekit/assistant
COPY exporter/src exporter/src
COPY src src
COPY assistant/src assistant/src
RUN npm run build:contract --workspace @probekit/exporter \
 && npx tsc -p tsconfig.build.json \
 && npm run build --workspace @probekit/assistant \
 && mkdir /packs \
 && npm pack --ignore-scripts --pack-destination /packs --workspace @probekit/exporter \
 && npm pack --ignore-scripts --pack-destination /packs --workspace @probekit/assistant \
 && npm pack --ignore-scripts --pack-destination /packs

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
CMD ["assistant", "serve", "--http", "8080", "--host", "0.0.0.0"]
