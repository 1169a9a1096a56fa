# probekit image: the `probekit` command, serving the assistant's skills by default; built from the repository root with
#   docker build -t probekit .
# (the exporter's image is exporter/Dockerfile). The build stage installs the locked dependencies of the root package
# and of the workspaces it publishes, packs them as they are published (packaging/pack.mjs), installs the packs
# (probekit, @probekit/exporter, @probekit/assistant) with their production dependencies only (no cdk8s peers: the
# skills server needs none), the way a user installs them, and gathers the runtime's files
# (packaging/images/runtime-root.sh). The runtime stage is only those: Node, the libraries it loads, /usr/bin/env for
# the bin's `#!/usr/bin/env node`, and the installed packages, run as the unprivileged user 1000; no shell, no package
# manager, no npm. Nothing is written at run time, so a read-only root filesystem works; the orchestrator checks
# health (Kubernetes: GET /healthz, AssistantSkills' probes), since an OCI image carries no HEALTHCHECK.

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
WORKDIR /opt/probekit
RUN npm init --yes >/dev/null \
 && npm install --omit=dev --omit=peer --no-audit --no-fund /packs/*.tgz
RUN sh /src/packaging/images/runtime-root.sh /runtime /usr/bin/env

FROM scratch
COPY --from=build /runtime /
COPY --from=build /opt/probekit /opt/probekit
ENV PATH=/opt/probekit/node_modules/.bin:/usr/local/bin:/usr/bin NODE_ENV=production
WORKDIR /opt/probekit
# Numeric, so that Kubernetes' runAsNonRoot can check it without the image's /etc/passwd.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["probekit"]
CMD ["assistant", "serve", "--http", "8080", "--host", "0.0.0.0", "--http-token-env", "PROBEKIT_MCP_TOKEN"]
