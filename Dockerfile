# syntax=docker/dockerfile:1
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
WORKDIR /app
# Fixed ids, so a pod's securityContext can name them (deploy/kubernetes: runAsUser 10001, runAsNonRoot).
RUN groupadd --system --gid 10001 keygate && useradd --system --uid 10001 --gid keygate --home-dir /app keygate \
 && mkdir -p /data && chown keygate:keygate /data
COPY --from=build --chown=keygate:keygate /app/node_modules ./node_modules
COPY --from=build --chown=keygate:keygate /app/dist ./dist
COPY --chown=keygate:keygate package.json ./
USER keygate
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-old-space-size=192", "--max-semi-space-size=16", "--no-allocation-site-pretenuring", "dist/src/infrastructure/server/main.js"]
