import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/`, import.meta.url))

// Tests import packages by their public names; these aliases point those names at the
// TypeScript sources, so unit tests need no build. Tests that start example servers run
// the built `dist/` through Node, which `npm test` builds first.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@portcullis\/core$/, replacement: pkg("core") + "index.ts" },
      { find: /^@portcullis\/core\/(.*)$/, replacement: pkg("core") + "$1.ts" },
      { find: /^@portcullis\/example-kit$/, replacement: fileURLToPath(new URL("./examples/kit/src/index.ts", import.meta.url)) },
      { find: /^@portcullis\/example-kit\/([\w-]+)$/, replacement: fileURLToPath(new URL("./examples/kit/src/", import.meta.url)) + "$1.ts" },
      // Generated at build time (scripts/provider-modules.ts): core's modules under each framework package's name.
      { find: /^@portcullis\/(next|express|sveltekit|solid-start|qwik)\/providers$/, replacement: pkg("core") + "providers/index.ts" },
      { find: /^@portcullis\/(next|express|sveltekit|solid-start|qwik)\/providers\/([\w-]+)$/, replacement: pkg("core") + "providers/$2.ts" },
      { find: /^@portcullis\/([a-z-]+)$/, replacement: fileURLToPath(new URL("./packages/", import.meta.url)) + "$1/src/index.ts" },
      { find: /^@portcullis\/([a-z-]+)\/([\w/-]+)$/, replacement: fileURLToPath(new URL("./packages/", import.meta.url)) + "$1/src/$2.ts" },
    ],
  },
  test: {
    projects: [
      { extends: true, test: { name: "default", include: ["packages/*/test/**/*.test.ts", "e2e/**/*.test.ts", "bench/**/*.test.ts", "runtimes/test/**/*.test.ts"] } },
      // The Redis stores' whole folder again, on Valkey (issue 35): the single server, the
      // cluster, the throwaway servers and the failover cluster all Valkey's, on ports of
      // their own (.ci/run starts them). server-identity.test.ts checks it is Valkey.
      {
        extends: true,
        test: {
          name: "valkey",
          include: ["packages/redis-adapter/test/**/*.test.ts"],
          env: {
            PORTCULLIS_REDIS_EXPECT: "valkey",
            PORTCULLIS_REDIS_URL: "redis://127.0.0.1:6390",
            PORTCULLIS_REDIS_CLUSTER_URL: "redis+cluster://127.0.0.1:7301,127.0.0.1:7302,127.0.0.1:7303",
            PORTCULLIS_REDIS_SERVER: "valkey-server",
            PORTCULLIS_REDIS_CLI: "valkey-cli",
            PORTCULLIS_FAILOVER_CLUSTER_PORT: "7401",
          },
        },
      },
    ],
    testTimeout: 30_000,
    // Browser tests poll for what a page shows; on 2 busy cores a password hash (PBKDF2 at
    // 600,000 iterations) plus a round trip can outlast vitest's 1 s default.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
    pool: "forks",
  },
})
