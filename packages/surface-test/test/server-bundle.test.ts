/**
 * Issue 30: what a SvelteKit app's server build carries for Portcullis, next to Auth.js's
 * `@auth/sveltekit` for the same configuration (GitHub and credentials, JWT sessions). The app
 * module is bundled the way Vite's server build does (esbuild here: Node platform, ESM,
 * minified, code splitting; SvelteKit itself and its `$app`/`$env` modules left out, as the
 * app provides them), and measured twice: what the server loads at startup (the entry chunk
 * and what it imports statically), and the whole output, the chunks behind `import()`
 * included — what a deployment ships.
 *
 * The packages are bundled from their built `dist`: `npm test` builds first.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { build, type Metafile, type Plugin } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root } from "./surface.ts"

interface Measure {
  /** Minified bytes loaded at startup. */
  startup: number
  /** Minified bytes of every chunk. */
  total: number
  /** Input modules loaded at startup. */
  startupInputs: string[]
  /** Input modules only in chunks loaded through `import()`. */
  lazyInputs: string[]
}

const app = (pkg: string) => `import { SvelteKitAuth } from "${pkg}"
import GitHub from "${pkg}/providers/github"
import Credentials from "${pkg}/providers/credentials"
export const { handle } = SvelteKitAuth({ providers: [GitHub, Credentials({ authorize: async () => null })] })`

/**
 * `@portcullis/*` imports resolved to this checkout's packages, whoever imports them: a git
 * worktree shares another checkout's node_modules, whose workspace links point there.
 */
function thisCheckout(links: string): Plugin {
  return {
    name: "this-checkout",
    setup(on) {
      on.onResolve({ filter: /^@portcullis\// }, (args) => {
        if (args.pluginData === "this-checkout") return undefined
        return on.resolve(args.path, { kind: args.kind, resolveDir: links, pluginData: "this-checkout" })
      })
    },
  }
}

let links: string
beforeAll(() => {
  links = mkdtempSync(join(tmpdir(), "portcullis-server-bundle-"))
  mkdirSync(join(links, "node_modules/@portcullis"), { recursive: true })
  for (const dir of readdirSync(join(root, "packages"))) symlinkSync(join(root, "packages", dir), join(links, "node_modules/@portcullis", dir))
})
afterAll(() => rmSync(links, { recursive: true, force: true }))

async function measure(pkg: string): Promise<Measure> {
  const result = await build({
    stdin: { contents: app(pkg), resolveDir: root, loader: "ts", sourcefile: "auth.ts" },
    // The metafile's paths are relative to this: the entry is "auth.ts" from any working directory.
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "node",
    target: "node22",
    outdir: "/server-bundle",
    write: false,
    metafile: true,
    logLevel: "silent",
    external: ["@sveltejs/kit", "@sveltejs/kit/*", "svelte", "svelte/*", "$app/*", "$env/*"],
    plugins: [thisCheckout(links)],
  })
  const outputs: Metafile["outputs"] = result.metafile.outputs
  const entry = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === "auth.ts")!
  const startup = new Set<string>()
  const visit = (path: string) => {
    if (startup.has(path)) return
    startup.add(path)
    for (const i of outputs[path]!.imports) if (i.kind === "import-statement" && !i.external) visit(i.path)
  }
  visit(entry)
  const startupInputs = [...startup].flatMap((path) => Object.keys(outputs[path]!.inputs))
  const all = Object.keys(result.metafile.inputs)
  const size = (paths: Iterable<string>) => [...paths].reduce((sum, path) => sum + outputs[path]!.bytes, 0)
  return { startup: size(startup), total: size(Object.keys(outputs).filter((path) => !path.endsWith(".map"))), startupInputs, lazyInputs: all.filter((input) => !startupInputs.includes(input)) }
}

let ours: Measure
let theirs: Measure
beforeAll(async () => {
  ;[ours, theirs] = await Promise.all([measure("@portcullis/sveltekit"), measure("@auth/sveltekit")])
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
  console.log(`SvelteKit server, GitHub + credentials: Portcullis ${kib(ours.startup)} at startup, ${kib(ours.total)} in all; Auth.js ${kib(theirs.startup)} / ${kib(theirs.total)}`)
}, 120_000)

describe("a SvelteKit app with GitHub and credentials sign-in", () => {
  const qr = /node_modules\/qrcode-generator\//

  // createTotpEnrollment imports the encoder on its first call; before, the integration's
  // two-factor module brought it into every server's startup.
  it("loads no QR encoder at startup (two-factor is not configured)", () => {
    expect(ours.startupInputs.filter((input) => qr.test(input))).toEqual([])
    expect(ours.lazyInputs.some((input) => qr.test(input))).toBe(true)
  })

  // WebAuthn's code comes with the WebAuthn() and Passkey() provider functions (core's
  // lib/kinds/provided.ts), so a build without them has no path to it, not even an import().
  it("ships no WebAuthn code at all (no passkey provider)", () => {
    const webauthn = /node_modules\/(@simplewebauthn|@peculiar|asn1js)\/|core\/dist\/lib\/(kinds\/webauthn|webauthn\/)/
    expect([...ours.startupInputs, ...ours.lazyInputs].filter((input) => webauthn.test(input))).toEqual([])
  })

  // Argon2 and zxcvbn come with the Password() provider function (lib/kinds/password.ts),
  // as WebAuthn's code comes with WebAuthn(): they were 668 KiB of this build's chunks.
  it("ships no password hashing or strength code at all (no Password provider)", () => {
    const password = /node_modules\/(@zxcvbn-ts|hash-wasm)\/|core\/dist\/(password\.js|lib\/password\/argon2|lib\/password-flows\/estimator|lib\/kinds\/password\.js)/
    expect([...ours.startupInputs, ...ours.lazyInputs].filter((input) => password.test(input))).toEqual([])
  })

  // The Public Suffix List is loaded when a trusted origin has a wildcard, each language but
  // English when it is first needed, two-factor enrollment on its first call.
  it("loads no Public Suffix List, no catalog but English and no TOTP code at startup", () => {
    const lazy = /node_modules\/(tldts|tldts-core|otpauth)\/|core\/dist\/lib\/i18n\/catalogs\/(?!en\.js)/
    expect(ours.startupInputs.filter((input) => lazy.test(input))).toEqual([])
    expect(ours.lazyInputs.some((input) => /node_modules\/tldts\//.test(input))).toBe(true)
  })

  it("loads no WebAuthn, password-strength or Argon2 code at startup", () => {
    const heavy = /node_modules\/(@simplewebauthn|@peculiar|asn1js|@zxcvbn-ts|hash-wasm)\//
    expect(ours.startupInputs.filter((input) => heavy.test(input))).toEqual([])
  })

  // Issue 30 asks for the server bundle within 1.5× of Auth.js's. At startup — what a server
  // loads and runs before its first request — it is: 220 KiB against 149 KiB (1.48×; it was
  // 482 KiB, 3.2×, before Argon2, zxcvbn, the Public Suffix List, seven catalogs and TOTP
  // enrollment left the startup path). Measured 2026-11-28, esbuild minified, Node platform.
  it("loads within 1.5× of Auth.js's code at startup", () => {
    expect(ours.startup).toBeLessThanOrEqual(theirs.startup * 1.5)
  })

  // The whole output, what a deployment ships, is not within 1.5×: 604 KiB against 149 KiB
  // (4.0×; it was 1,271 KiB, 8.5×). What is left behind import() is what configuration
  // *values* switch on, so no provider function can bring it: the Public Suffix List
  // (131 KiB, any wildcard in trustedOrigins), seven catalogs (111 KiB, i18n and
  // Accept-Language), two-factor (otpauth and the QR encoder, 28 KiB, the twoFactor option),
  // oauth4webapi and core's OAuth code (52 KiB, GitHub needs them). Auth.js ships one language
  // and neither feature. Leaving those out of the build would need options that name the
  // code (a catalog or a suffix list passed in), an API change this issue does not make.
  it.fails("ships a server build within 1.5× of Auth.js's for the same configuration", () => {
    expect(ours.total).toBeLessThanOrEqual(theirs.total * 1.5)
  })

  // Until then, a ceiling that catches a feature's code slipping back into every build. It
  // was 4.5× until issue 33: the extension API's facets (the account center's and admin
  // console's in issue 32, SSO's sign-in, OIDC relying party and browser binding in 33) sit
  // behind import() — never at startup, the test above — but a bundler ships them with every
  // build, 4.54× on 2026-11-29. Carrying that code on defineExtension(), as providers carry
  // their kinds, would leave it out of builds without extensions.
  it("ships a server build within 4.75× of Auth.js's (4.54× today, 8.5× before issue 30)", () => {
    expect(ours.total).toBeLessThanOrEqual(theirs.total * 4.75)
  })
})
