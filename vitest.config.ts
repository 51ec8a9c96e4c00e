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
    include: ["packages/*/test/**/*.test.ts", "e2e/**/*.test.ts", "bench/**/*.test.ts", "runtimes/test/**/*.test.ts"],
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
