/**
 * The TypeScript blocks of README.md and docs/*.md, as files a type checker can read.
 * A block preceded by `<!-- not-compiled: reason -->` is left out (a deliberate fragment);
 * the reason is required, so every exception says why.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface DocBlock {
  /** `docs/next.md`. */
  doc: string
  /** 1-based line of the block's first code line in the doc. */
  line: number
  code: string
}

export interface Skipped {
  doc: string
  line: number
  reason: string
}

/**
 * The file tsc checks for a block. A block that is only imports and one object literal
 * (`{ adapter, providers, session: … }`, as the option tables show) is checked as an
 * `AuthConfig`, and one that is only options (`rateLimit: { … }`) as part of one, so a
 * misspelt or mistyped option fails; anything else is checked as written.
 */
export function moduleSource(block: DocBlock): string {
  const lines = block.code.split("\n")
  // A configuration literal: the last line that opens with `{` at column 0 starts it, and
  // it runs to the end of the block (declarations and imports may come before it).
  const start = lines.findLastIndex((l) => l.startsWith("{"))
  if (start !== -1 && lines.slice(start).join("\n").trim().endsWith("}")) {
    // Same line count as the doc: the wrapper goes on the line of the opening brace.
    lines[start] = lines[start]!.replace("{", `export const config: import("@portcullis/core").AuthConfig = {`)
    return `${lines.join("\n")}\n`
  }
  // `rateLimit: { … }` or `session: { … }` alone: some options of a configuration.
  let body = 0
  while (body < lines.length && /^\s*(import\b.*|\/\/.*)?$/.test(lines[body]!)) body++
  if (/^[A-Za-z]\w*\s*:\s*[{\[]/.test(lines.slice(body).join("\n").trim())) {
    lines[body] = `export const config: Partial<import("@portcullis/core").AuthConfig> = { ${lines[body]}`
    return `${lines.join("\n")}\n}\n`
  }
  return `${block.code}\nexport {}\n`
}

/**
 * Names the docs use without declaring them, each standing for the reader's own object of
 * that type (their providers, their database…). Declared with real types, so a block that
 * misuses one still fails; a block that needs anything else declares it or is marked.
 */
export const PLACEHOLDERS = `import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { Provider } from "@portcullis/core/providers"
import type { Kysely } from "kysely"
import type { Redis } from "ioredis"
declare global {
  /** The app's providers. */
  const providers: Provider[]
  /** The app's adapter. */
  const adapter: Adapter
  /** The app's Kysely instance (\`createPostgresKysely(…)\` and friends). */
  const db: Kysely<any>
  /** The app's ioredis client. */
  const redis: Redis
  /** The app's configuration, as passed to the integration. */
  const authConfig: AuthConfig
  /** The same, where a guide calls it \`config\`. */
  const config: AuthConfig
  /** The incoming request, in a Web-standard handler. */
  const request: Request
}
export {}
`

/**
 * The app's own `auth.ts` as each framework's guide imports it (`@/auth` in Next.js,
 * `$lib/auth` in SvelteKit, `~/auth` in SolidStart), typed as what that file exports.
 * A script file (no top-level import), so these are declarations, not augmentations.
 */
export const APP_MODULES = `declare module "@/auth" {
  import type { NextAuthResult } from "@portcullis/next"
  export const handlers: NextAuthResult["handlers"]
  export const auth: NextAuthResult["auth"]
  export const signIn: NextAuthResult["signIn"]
  export const signOut: NextAuthResult["signOut"]
  export const sessions: NextAuthResult["sessions"]
  export const auditTrail: NextAuthResult["auditTrail"]
  export const getAccessToken: NextAuthResult["getAccessToken"]
  export const extensions: NextAuthResult["extensions"]
}
declare module "$lib/auth" {
  import type { SvelteKitAuthResult } from "@portcullis/sveltekit"
  export const handle: SvelteKitAuthResult["handle"]
  export const signIn: SvelteKitAuthResult["signIn"]
  export const signOut: SvelteKitAuthResult["signOut"]
}
declare module "~/auth" {
  import type { SolidAuthConfig } from "@portcullis/solid-start"
  export const authOptions: SolidAuthConfig
}
`

/** The Express guide's own `./auth.js` (its first block), which the other blocks import. */
export const EXPRESS_AUTH_MODULE = `import type { ExpressAuthConfig } from "@portcullis/express"
export declare const authConfig: ExpressAuthConfig
`

export function docFiles(root: string): string[] {
  return ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)]
}

/** Every ```ts / ```typescript block, with the ones marked not-compiled apart. */
export function extractBlocks(root: string, doc: string): { blocks: DocBlock[]; skipped: Skipped[] } {
  const lines = readFileSync(join(root, doc), "utf8").split("\n")
  const blocks: DocBlock[] = []
  const skipped: Skipped[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]!)
    if (!open) continue
    const indent = open[1]!.length
    let end = i + 1
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++
    const code = lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join("\n")
    // The marker is the nearest non-blank line above the fence.
    let above = i - 1
    while (above >= 0 && lines[above]!.trim() === "") above--
    const marker = above >= 0 ? /^\s*<!--\s*not-compiled:\s*(.*?)\s*-->\s*$/.exec(lines[above]!) : null
    if (marker) skipped.push({ doc, line: i + 2, reason: marker[1]! })
    else blocks.push({ doc, line: i + 2, code })
    i = end
  }
  return { blocks, skipped }
}
