# The API and the worker share one image: `node dist/src/process/server.js` or `node dist/src/process/worker.js`.
# Node 24 (LTS), the major `npm run test:node24` runs the whole suite on (scripts/tools.sh pins the version it fetches).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY portal ./portal
# The workflows are bundled here, once: the worker loads dist/workflow-bundle.js instead of bundling at every start.
# The integrator portal's page is built into dist/portal (served by the API under /portal/).
RUN npm run build:portal && npm run build && npm run bundle:workflows && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# glibc's malloc otherwise opens up to 8 arenas per core for the threads of the Temporal SDK's core, V8 and libuv,
# each holding freed memory: docs/scale-and-size.md, "Worker memory" (test/integration/worker-memory.test.ts).
ENV MALLOC_ARENA_MAX=2
# What the worker frees goes back to the system: blocks of 64 KiB and more are mapped on their own and unmapped when
# freed (glibc's default threshold rises with the blocks freed, up to 32 MiB, and then keeps them in the heap), and the
# heap's free top is trimmed beyond 128 KiB. 15 min into 20,000 deliveries waiting: RSS 690 → 527 MB (same section).
ENV MALLOC_MMAP_THRESHOLD_=65536
ENV MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The operator CLI over the built code: `docker compose exec api node bin/herald.mjs integrators create Acme`.
COPY bin ./bin
USER node
EXPOSE 3000
CMD ["node", "dist/src/process/server.js"]
