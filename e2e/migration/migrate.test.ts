// The mechanical part of the migration test (e2e/migration/*.test.ts): what the rewrite of an
// Auth.js app's sources and package.json changes, and what it must leave alone.
import { describe, expect, it } from "vitest"
import { portcullisSpecifier, rewritePackageJson, rewriteSpecifiers } from "./migrate.js"

describe("rewriting import specifiers", () => {
  it("maps each Auth.js package and its subpaths to the Portcullis package", () => {
    expect(portcullisSpecifier("next-auth")).toBe("@portcullis/next")
    expect(portcullisSpecifier("next-auth/providers/credentials")).toBe("@portcullis/next/providers/credentials")
    expect(portcullisSpecifier("@auth/sveltekit/components")).toBe("@portcullis/sveltekit/components")
    expect(portcullisSpecifier("@auth/core/types")).toBe("@portcullis/core/types")
  })

  it("leaves packages outside the mapping alone, including look-alike names", () => {
    expect(portcullisSpecifier("next-auth-extra")).toBeUndefined()
    expect(portcullisSpecifier("@auth/prisma-adapter")).toBeUndefined()
    expect(portcullisSpecifier("next/server")).toBeUndefined()
  })

  it("rewrites static, side-effect and dynamic imports, re-exports and module augmentations, nothing else", () => {
    const source = [
      `import NextAuth from "next-auth"`,
      `import type { Session } from 'next-auth'`,
      `export { auth as proxy } from "@/auth"`,
      `export * from "@auth/express"`,
      `import "next-auth/react"`,
      `const lazy = await import("next-auth/jwt")`,
      `declare module "next-auth" {}`,
      `const label = "next-auth"`,
      `// see "next-auth" in the docs`,
    ].join("\n")
    expect(rewriteSpecifiers(source)).toBe(
      [
        `import NextAuth from "@portcullis/next"`,
        `import type { Session } from '@portcullis/next'`,
        `export { auth as proxy } from "@/auth"`,
        `export * from "@portcullis/express"`,
        `import "@portcullis/next/react"`,
        `const lazy = await import("@portcullis/next/jwt")`,
        `declare module "@portcullis/next" {}`,
        `const label = "next-auth"`,
        `// see "next-auth" in the docs`,
      ].join("\n"),
    )
  })
})

describe("rewriting package.json", () => {
  const tarballs = { "@portcullis/core": "/t/core.tgz", "@portcullis/next": "/t/next.tgz" }

  it("replaces the Auth.js dependency by the tarballs of the Portcullis package and of core, which it depends on", () => {
    const pkg = { name: "app", scripts: { build: "next build" }, dependencies: { next: "16.4.6", "next-auth": "5.0.0-beta.32" }, devDependencies: { typescript: "5.9.3" } }
    expect(rewritePackageJson(pkg, tarballs)).toEqual({
      name: "app",
      scripts: { build: "next build" },
      dependencies: { next: "16.4.6", "@portcullis/core": "file:/t/core.tgz", "@portcullis/next": "file:/t/next.tgz" },
      devDependencies: { typescript: "5.9.3" },
    })
  })

  it("fails when a needed tarball was not packed", () => {
    expect(() => rewritePackageJson({ dependencies: { "@auth/express": "0.12.3" } }, tarballs)).toThrow(/no tarball for @portcullis\/express/)
  })
})
