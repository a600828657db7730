# mailbridge: build on Node 24 LTS, run as an unprivileged user with production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The image is the service alone: packages/ (@mailbridge/contracts, the npm workspace other
# services use) is not copied, so npm installs the root's dependencies and leaves it out.
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts skips the root's postinstall too: apply patches/ (kafkajs' encoder,
# sonic-boom's pending length) by hand.
RUN npm install --no-audit --no-fund --ignore-scripts && npx patch-package --error-on-fail
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
RUN npx nest build && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# The V8 heap for a 320 MiB container (deploy/, README "Kubernetes"): 128 MB of old space and
# 8 MB semi-spaces leave room for code and buffers (docs/performance.md, "Memory"). Semi-spaces of 8 MB rather
# than 4 halve the scavenges, each of which copies the records in flight: +8 % events/s draining
# a backlog for 11 MB more peak RSS. Raise both with the container's memory limit.
ENV NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8"
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exec form: the service is PID 1's only child-free process and receives SIGTERM directly.
# --heap-growing-percent (a V8 flag NODE_OPTIONS refuses): under a heap limit below 256 MB, V8
# sets the next full collection at 1.3x the heap that survived the last, and with a window of
# records in flight that meant one every 200 ms at full speed. At 2x: -25 % CPU per sign-up,
# +5 MB peak RSS on the 1,000,000-event backlog (docs/performance.md, "Memory"). The limit is unchanged.
CMD ["node", "--heap-growing-percent=100", "dist/main.js"]
