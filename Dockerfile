# syntax=docker/dockerfile:1
# The controller-manager image: Node 24 runs the TypeScript sources directly (type stripping),
# so there is no compile step; only production dependencies are installed.
#
# NODE_IMAGE: any image with Node 24 and npm at /usr/local/bin (node:24-slim by default).
# `npm run image:build` builds this file offline with a base assembled from the checkout's pinned
# Node (packages/image/README.md).
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY . .
# The file set follows the workspace dependency graph: every workspace the controller-manager
# declares in its dependencies (transitively) is kept with its package.json and src/, the rest of
# the repo is removed, and the root package.json is rewritten to name only those workspaces.
# npm install, not npm ci: the lockfile lacks other platforms' optional packages (see .ci/run),
# and it drops the removed workspaces from the lock. The optional secret extra-ca (a PEM bundle,
# e.g. --secret id=extra-ca,src=/etc/ssl/certs/ca-certificates.crt) is trusted by npm's requests
# only: a registry reached through a TLS-inspecting proxy works without the image trusting it.
RUN --mount=type=secret,id=extra-ca \
    if [ -s /run/secrets/extra-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra-ca; fi \
 && node packages/image/src/prune-for-image.ts @cloneset-suite/controller-manager \
 && npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
 && rm -f package-lock.json .npmrc \
 && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app ./
# Any uid works (the Deployment runs as 65532); nothing is written outside /tmp.
USER 65532:65532
EXPOSE 9443 8080 8081
ENTRYPOINT ["node", "apps/controller-manager/src/main.ts"]
