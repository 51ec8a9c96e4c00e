/**
 * Issue 18: a Next.js app's proxy (`middleware.ts` before Next.js 16) runs on Next's edge
 * runtime by default, and imports the app's `auth` from `@portcullis/next`. Bundled the way
 * Next's edge build resolves packages (`edge-light`, `worker`, `browser` conditions, with
 * `next/*` left to Next, which provides it), it must import no Node built-in: Next refuses
 * or polyfills them on the edge, and `node:async_hooks` in particular is not needed there —
 * Next puts `AsyncLocalStorage` on `globalThis` in both runtimes.
 *
 * The bundles come from the built packages (`dist`): `npm test` builds first.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { bundleForEdge, type EdgeBundle } from "../bundle.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** An app's `auth.ts` and `proxy.ts` in one module, as the edge build sees them. */
const proxy = [
  `import NextAuth from "@portcullis/next"`,
  `import GitHub from "@portcullis/next/providers/github"`,
  `import Credentials from "@portcullis/next/providers/credentials"`,
  `export const { auth, handlers } = NextAuth({ providers: [GitHub, Credentials({ authorize: async () => null })] })`,
  `export { auth as proxy }`,
  `export const config = { matcher: ["/dashboard/:path*"] }`,
].join("\n")

const nodeImports = (bundle: EdgeBundle) => bundle.nodeImports.map((i) => `${i.specifier} (imported by ${i.importer.replace(root, "")})`)

describe("@portcullis/next in a proxy (middleware) bundled for Next's edge runtime", () => {
  it("imports no Node built-in", async () => {
    const bundle = await bundleForEdge({ contents: proxy, resolveDir: root }, "edge-light", { external: ["next", "next/*"] })
    expect(nodeImports(bundle)).toEqual([])
    // What was bundled is @portcullis/next itself, not an empty shell.
    expect(bundle.inputs).toEqual(expect.arrayContaining([expect.stringMatching(/packages\/next\/dist\/lib\/config\.js$/)]))
  })

  it("imports no Node built-in from any of its edge-usable entries", async () => {
    for (const entry of ["@portcullis/next", "@portcullis/next/jwt", "@portcullis/next/providers", "@portcullis/next/react"]) {
      const bundle = await bundleForEdge({ contents: `export * from "${entry}"`, resolveDir: root }, "edge-light", { external: ["next", "next/*", "react", "react/*"] })
      expect(nodeImports(bundle), entry).toEqual([])
    }
  })
})
