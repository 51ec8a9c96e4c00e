/**
 * The Svelte components (`@portcullis/account/svelte/components`), as an app's Svelte compiles
 * them: every `.svelte` file compiles for the client and the server without a single warning
 * (Svelte's accessibility checks included), and the server rendering of a state the real
 * routes answered has every section, the catalog's language, labelled inputs, live regions
 * for notices, device names rather than User-Agents, and the two-factor set-up's QR code and
 * key.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compile } from "svelte/compiler"
import { render } from "svelte/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountClient, type AccountState } from "@portcullis/account/client"
import { accountStore, type AccountSnapshot } from "@portcullis/account/svelte"
import { plantPasskey, testbed, type Actor } from "./support.js"

const sources = join(import.meta.dirname, "..", "svelte")
const components = readdirSync(sources).filter((file) => file.endsWith(".svelte"))
// Inside the package, so the compiled code's `svelte/internal/server` is the copy `svelte/server` is.
const out = mkdtempSync(join(import.meta.dirname, ".svelte-compiled-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

const clientOf = (actor: Actor) =>
  accountClient({ basePath: "/auth", fetch: ((input: RequestInfo | URL, init?: RequestInit) => actor.browser.request(String(input), init ?? {})) as typeof fetch, returnTo: () => "/settings" })

type Rendered = (props: Record<string, unknown>) => string
let renderer: (name: string) => Rendered

beforeAll(async () => {
  for (const file of components) {
    const { js } = compile(readFileSync(join(sources, file), "utf8"), { generate: "server", filename: file })
    writeFileSync(join(out, `${file}.js`), js.code.replace(/from "\.\/(\w+)\.svelte"/g, 'from "./$1.svelte.js"'))
  }
  copyFileSync(join(sources, "account.js"), join(out, "account.js"))
  const modules = new Map<string, unknown>()
  for (const file of components) modules.set(file.replace(".svelte", ""), (await import(join(out, `${file}.js`))).default)
  renderer = (name) => (props) => render(modules.get(name) as never, { props }).body
})

describe("every component compiles as an app's Svelte compiles it", () => {
  it.each(components)("%s: for the browser and the server, with no warning (accessibility included)", (file) => {
    const source = readFileSync(join(sources, file), "utf8")
    for (const generate of ["client", "server"] as const) {
      const { warnings } = compile(source, { generate, filename: file })
      expect(warnings.map((w) => `${w.code}: ${w.message}`)).toEqual([])
    }
  })

  it("type-checks with svelte-check: props, the store and the client agree", () => {
    const root = join(import.meta.dirname, "..", "..", "..")
    const run = spawnSync(process.execPath, [join(root, "node_modules/svelte-check/bin/svelte-check"), "--workspace", sources, "--tsconfig", join(sources, "tsconfig.json"), "--output", "machine", "--fail-on-warnings"], { encoding: "utf8", timeout: 120_000 })
    expect(run.stdout).toMatch(/COMPLETED \d+ FILES 0 ERRORS 0 WARNINGS/)
    expect(run.status, run.stdout + run.stderr).toBe(0)
  }, 120_000)

  it("the examples of docs/account.md's Svelte section compile and type-check", () => {
    const docs = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "account.md"), "utf8")
    const section = docs.slice(docs.indexOf("### Svelte"), docs.indexOf("## The core seam"))
    const examples = [...section.matchAll(/```svelte\n([^]*?)```/g)].map(([, code]) => code!)
    expect(examples.length).toBeGreaterThanOrEqual(2)
    const dir = mkdtempSync(join(import.meta.dirname, ".docs-examples-"))
    try {
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(sources, "tsconfig.json"), include: ["*.svelte", join(sources, "*.d.ts"), join(sources, "../../core/src/lib/rate-limit/rate-limiter-flexible.d.ts")] }))
      examples.forEach((code, i) => {
        expect(compile(code, { filename: `Example${i}.svelte` }).warnings).toEqual([])
        writeFileSync(join(dir, `Example${i}.svelte`), code)
      })
      const root = join(import.meta.dirname, "..", "..", "..")
      const run = spawnSync(process.execPath, [join(root, "node_modules/svelte-check/bin/svelte-check"), "--workspace", dir, "--tsconfig", join(dir, "tsconfig.json"), "--output", "machine", "--fail-on-warnings"], { encoding: "utf8", timeout: 120_000 })
      expect(run.stdout).toMatch(/COMPLETED \d+ FILES 0 ERRORS 0 WARNINGS/)
      expect(run.status, run.stdout + run.stderr).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("the package's index names every public component, and its types declare each", () => {
    const index = readFileSync(join(sources, "index.js"), "utf8")
    const types = readFileSync(join(sources, "index.d.ts"), "utf8")
    const sections = ["ProfileSection", "EmailSection", "LinkedAccountsSection", "PasskeysSection", "PasswordSection", "TwoFactorSection", "SessionsSection", "DeleteSection"]
    for (const name of ["AccountCenter", "AccountNotices", ...sections]) {
      expect(components).toContain(`${name}.svelte`)
      expect(index).toContain(`{ default as ${name} } from "./${name}.svelte"`)
      expect(types).toContain(`export declare const ${name}: Component<`)
    }
  })
})

describe("<AccountCenter/> rendered on the server from the routes' state", () => {
  it("has every section, device names, labelled inputs and live regions", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.anotherSession()
    await plantPasskey(bed.adapter, ada.id, "k1", "Laptop")
    const client = clientOf(ada)
    const html = renderer("AccountCenter")({ initialState: await client.state(), client })
    for (const id of ["profile", "email", "accounts", "passkeys", "password", "two-factor", "sessions", "delete"]) {
      expect(html).toContain(`id="${id}"`)
      expect(html).toContain(`aria-labelledby="${id}-heading"`)
    }
    expect(html).toMatch(/<h1[^>]*>Your account<\/h1>/)
    expect(html).toContain("Laptop")
    expect(html).toContain("Firefox on Windows")
    expect(html).not.toContain("Mozilla/5.0")
    // The notice regions are in the page before anything happens, so what appears is announced.
    expect(html).toMatch(/<p role="status"[^>]*>/)
    expect(html).toMatch(/<p role="alert"[^>]*>/)
    const inputs = [...html.matchAll(/<input[^>]*\bid="([^"]+)"/g)].map(([, id]) => id!)
    expect(inputs.length).toBeGreaterThan(5)
    for (const id of inputs) expect(html).toContain(`<label for="${id}">`)
    expect(html).toContain('autocomplete="current-password"')
    expect(html).toContain("Sign out all other sessions")
  })

  it("speaks the catalog's language, right to left for Arabic", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const initialState = await client.state()
    const ja = renderer("SessionsSection")({ initialState, client, locale: "ja" })
    expect(ja).toContain("セッション")
    expect(ja).toContain("Windows の Firefox")
    const ar = renderer("AccountCenter")({ initialState, client, locale: "ar" })
    expect(ar).toMatch(/<div class="portcullis-account[^"]*" dir="rtl" lang="ar">/)
  })

  it("shows the two-factor set-up: the QR code with its text alternative and the key to type", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const enrollment = await client.startTwoFactor()
    const html = renderer("TwoFactorSection")({ initialState: await client.state(), client })
    expect(html).toMatch(/<img alt="QR code for your authenticator app" width="200" height="200" src="data:image\/svg\+xml;charset=utf-8,%3Csvg/)
    expect(html).toContain(enrollment.manualKey)
    expect(html).toContain('<label for="account-enable-code">Code from your authenticator app</label>')
    expect(html).toContain('autocomplete="one-time-code"')
  })

  it("a section on its own has its own notice regions; inside the center it shares the center's", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const initialState = await client.state()
    expect(renderer("ProfileSection")({ initialState, client })).toMatch(/role="status"/)
    const center = renderer("AccountCenter")({ initialState, client })
    expect(center.match(/role="status"/g)).toHaveLength(1)
  })

  it("renders nothing of a section the site does not offer", async () => {
    const bed = testbed({ config: { twoFactor: undefined } })
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const state: AccountState = await client.state()
    expect(state.twoFactor.available).toBe(false)
    expect(renderer("TwoFactorSection")({ initialState: state, client })).not.toContain("two-factor")
  })
})

describe("the store under the components: initialState and load", () => {
  it("holds the given state and loads nothing until asked", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    let calls = 0
    const client = clientOf(ada)
    const counting = { ...client, state: () => (calls++, client.state()) }
    const initialState = await client.state()
    const store = accountStore({ client: counting, initialState })
    let seen: AccountSnapshot | undefined
    const stop = store.subscribe((value) => (seen = value))
    expect(seen?.data).toBe(initialState)
    expect(calls).toBe(0)
    await store.refresh()
    expect(calls).toBe(1)
    stop()
    const idle = accountStore({ client: counting, load: false })
    idle.subscribe(() => {})()
    expect(calls).toBe(1)
  })
})
