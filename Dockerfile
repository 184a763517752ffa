# One image for both processes; compose picks the entry point (api or worker).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: see scripts/ensure-deps.sh.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY workflows ./workflows
COPY activities ./activities
COPY src ./src
COPY scripts/build-web.sh ./scripts/build-web.sh
# The web console (api/console/web) is bundled here, with Vite from the dev dependencies,
# into dist/console-web, which the api serves at /console/.
RUN npx tsc -p tsconfig.build.json && bash scripts/build-web.sh && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The media bridge's recordings (a volume in docker-compose.yml): owned by the user it runs as.
RUN mkdir -p /var/lib/orchestrator/recordings && chown node:node /var/lib/orchestrator/recordings
USER node
CMD ["node", "dist/src/main/api.js"]
