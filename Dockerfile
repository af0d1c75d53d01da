# syntax=docker/dockerfile:1
# The controller-manager image: Node 24 runs the TypeScript sources directly (type stripping),
# so there is no compile step; only production dependencies are installed.

FROM node:24-slim AS deps
WORKDIR /app
COPY . .
# Production dependencies of the controller-manager and the workspace packages it imports
# (workspace packages become symlinks into packages/, outside node_modules).
# npm install, not npm ci: the lockfile lacks other platforms' optional packages (see .ci/run).
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund --workspace @cloneset-suite/controller-manager \
 && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/packages/api-types/package.json ./packages/api-types/package.json
COPY --from=deps /app/packages/api-types/src ./packages/api-types/src
COPY --from=deps /app/packages/kube-runtime/package.json ./packages/kube-runtime/package.json
COPY --from=deps /app/packages/kube-runtime/src ./packages/kube-runtime/src
COPY --from=deps /app/packages/cloneset-controller/package.json ./packages/cloneset-controller/package.json
COPY --from=deps /app/packages/cloneset-controller/src ./packages/cloneset-controller/src
COPY --from=deps /app/apps/controller-manager/package.json ./apps/controller-manager/package.json
COPY --from=deps /app/apps/controller-manager/src ./apps/controller-manager/src
# Any uid works (the Deployment runs as 65532); nothing is written outside /tmp.
USER 65532:65532
EXPOSE 9443 8080 8081
ENTRYPOINT ["node", "apps/controller-manager/src/main.ts"]
