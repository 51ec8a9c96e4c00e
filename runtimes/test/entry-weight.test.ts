/**
 * Issue 18: an app pays only for what it configures. Bundled the way a Worker build bundles
 * it (esbuild, tree-shaking, `workerd`/`worker`/`browser` conditions, platform neutral, ESM —
 * `runtimes/bundle.ts`), an app that imports only what it uses must not carry the code of
 * sign-in methods it does not configure: OAuth (`oauth4webapi`, core's `lib/oauth`),
 * WebAuthn (`@simplewebauthn/server`, core's `lib/webauthn`) or email (`nodemailer`, core's
 * `lib/email` and its pages). Detected from the module paths in esbuild's metafile; the
 * bundle size is printed so a change in weight shows in the test output.
 *
 * The bundles come from the built packages (`dist`): `npm test` builds first.
 */
import { gzipSync } from "node:zlib"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { bundleForEdge, type EdgeBundle } from "../bundle.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** Code of the sign-in methods an app may leave out, by module path. */
const unconfigured: Record<string, RegExp> = {
  OAuth: /node_modules\/oauth4webapi\/|core\/dist\/lib\/oauth\/|core\/dist\/lib\/kinds\/oauth\.js/,
  WebAuthn: /node_modules\/@simplewebauthn\/|core\/dist\/lib\/webauthn\/|core\/dist\/lib\/kinds\/webauthn\.js|core\/dist\/lib\/actions\/webauthn/,
  email: /node_modules\/nodemailer\/|core\/dist\/lib\/email\/|core\/dist\/lib\/kinds\/email\.js/,
}

/**
 * Each unconfigured method found in the bundle, with the modules outside it that import it
 * directly (the edges to cut), e.g. `WebAuthn ← lib/kinds/index.js → lib/kinds/webauthn.js`.
 */
function unconfiguredCode(bundle: EdgeBundle): string[] {
  const found: string[] = []
  for (const [method, pattern] of Object.entries(unconfigured)) {
    if (!bundle.inputs.some((input) => pattern.test(input))) continue
    const short = (path: string) => path.replace(/^.*?\/dist\//, "")
    const edges = Object.entries(bundle.imports).flatMap(([importer, imported]) =>
      pattern.test(importer) ? [] : imported.filter((path) => pattern.test(path)).map((path) => `${short(importer)} → ${short(path)}`),
    )
    found.push(`${method} ← ${edges.join(", ")}`)
  }
  return found
}

function report(name: string, bundle: EdgeBundle): void {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
  console.log(`${name}: ${kib(bundle.code.length)} (${kib(gzipSync(bundle.code).length)} gzipped), ${bundle.inputs.length} modules`)
}

describe("an app with the credentials provider and JWT sessions", () => {
  const app = [
    `import { Auth } from "@portcullis/core"`,
    `import Credentials from "@portcullis/core/providers/credentials"`,
    `const config = { secret: "a-test-secret-of-at-least-32-characters", session: { strategy: "jwt" as const }, providers: [Credentials({ authorize: async () => null })] }`,
    `export default { fetch: (request: Request) => Auth(request, config) }`,
  ].join("\n")
  let bundled: Promise<EdgeBundle> | undefined
  const bundle = () => (bundled ??= bundleForEdge({ contents: app, resolveDir: root }, "workerd", { splitting: true }))

  // The request path loads each provider kind (and the passkey options action) with
  // `import()`, only for configurations that have a provider of it, and each kind checks its
  // own providers' configuration: an app bundled with code splitting starts without OAuth,
  // WebAuthn or email code. (Before: about 1.17 MB, 257 KB gzipped, 456 modules, because
  // the kind registry, dispatch, config resolution and the sign-in page imported them all.)
  it("loads no OAuth, WebAuthn or email code at startup", async () => {
    report("credentials + JWT app, at startup", await bundle())
    expect(unconfiguredCode(await bundle())).toEqual([])
  })

  // OAuth is still in the build, in a chunk of its own, so a configuration that names it can
  // load it: split off, not dropped. WebAuthn is not in the build at all: its code comes with
  // the WebAuthn() and Passkey() provider functions (core's lib/kinds/provided.ts).
  it("keeps OAuth in a chunk loaded on demand, and WebAuthn out of the build", async () => {
    const { inputs, lazyInputs } = await bundle()
    expect(lazyInputs.some((input) => unconfigured.OAuth!.test(input))).toBe(true)
    // The passkey options action stays (a lazy chunk of a few lines that answers "no WebAuthn
    // provider is configured"); the WebAuthn code itself does not.
    const webauthn = [...inputs, ...lazyInputs].filter((input) => unconfigured.WebAuthn!.test(input))
    expect(webauthn.filter((input) => !input.endsWith("core/dist/lib/actions/webauthn-options.js"))).toEqual([])
    expect(inputs).not.toContainEqual(expect.stringMatching(/webauthn/))
  })

  it("bundles the credentials kind (loaded with its provider) and the JWT code it uses", async () => {
    const { inputs, lazyInputs } = await bundle()
    expect([...inputs, ...lazyInputs]).toEqual(expect.arrayContaining([expect.stringMatching(/core\/dist\/lib\/kinds\/credentials\.js$/)]))
    expect(inputs).toEqual(expect.arrayContaining([expect.stringMatching(/node_modules\/jose\//)]))
  })
})

describe("an app that only reads the session token (@portcullis/core/jwt)", () => {
  it("bundles without OAuth, WebAuthn or email code", async () => {
    const bundle = await bundleForEdge({ contents: `export { getToken, encode, decode } from "@portcullis/core/jwt"`, resolveDir: root }, "workerd")
    report("@portcullis/core/jwt", bundle)
    expect(unconfiguredCode(bundle)).toEqual([])
    expect(bundle.inputs).toEqual(expect.arrayContaining([expect.stringMatching(/node_modules\/jose\//)]))
  })
})
