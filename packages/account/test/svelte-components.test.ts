/**
 * The Svelte components (`@portcullis/account/svelte/components`), as an app's Svelte compiles
 * them: every `.svelte` file compiles for the client and the server without a single warning
 * (Svelte's accessibility checks included), and the server rendering of a state the real
 * routes answered has every section, the catalog's language, labelled inputs, live regions
 * for notices, device names rather than User-Agents, and the two-factor set-up's QR code and
 * key. And what an attacker, an outage and an impatient user do to them: markup in the
 * account's data is text, a store outage is a sentence (the account shown stays), and a
 * second submission while one runs is not sent — 50 at once through one store are one
 * request; 50 tabs at once get one success and 49 "not found".
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compile } from "svelte/compiler"
import { render } from "svelte/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountClient, type AccountState } from "@portcullis/account/client"
import { accountStore, type AccountSnapshot } from "@portcullis/account/svelte"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { act } from "../svelte/account.js"
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

  it("the examples of docs/account.md's Svelte section compile and type-check, and the declared types match the components", () => {
    const docs = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "account.md"), "utf8")
    const section = docs.slice(docs.indexOf("### Svelte"), docs.indexOf("## The core seam"))
    const examples = [...section.matchAll(/```svelte\n([^]*?)```/g)].map(([, code]) => code!)
    expect(examples.length).toBeGreaterThanOrEqual(2)
    const dir = mkdtempSync(join(import.meta.dirname, ".docs-examples-"))
    try {
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(sources, "tsconfig.json"), include: ["*.svelte", "*.ts", join(sources, "*.d.ts"), join(sources, "../../core/src/lib/rate-limit/rate-limiter-flexible.d.ts")] }))
      // And the declared types (index.d.ts) are what the components take: each is assignable.
      const names = ["AccountCenter", "AccountNotices", "ProfileSection", "EmailSection", "LinkedAccountsSection", "PasskeysSection", "PasswordSection", "TwoFactorSection", "SessionsSection", "DeleteSection"]
      writeFileSync(
        join(dir, "declared.ts"),
        [
          `import type * as Declared from "@portcullis/account/svelte/components"`,
          ...names.map((name) => `import ${name} from "../../svelte/${name}.svelte"\nexport const ${name}Matches: typeof Declared.${name} = ${name}`),
        ].join("\n"),
      )
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

describe("an attacker's markup in the account's data is shown as text", () => {
  it("a name, a passkey name and a place that look like HTML are escaped in the server rendering", async () => {
    const hostile = `"><img src=x onerror=alert(1)>`
    const bed = testbed({ extension: { locate: () => `<script>alert("place")</script>` } })
    const ada = await bed.person("ada")
    await ada.anotherSession()
    await plantPasskey(bed.adapter, ada.id, "k1", `</strong><script>alert("key")</script>`)
    const client = clientOf(ada)
    await client.updateProfile({ name: hostile })
    const html = renderer("AccountCenter")({ initialState: await client.state(), client })
    expect(html).not.toContain("<img src=x")
    expect(html).not.toContain("<script>alert")
    expect(html).toContain("&lt;script>alert(&quot;key&quot;)&lt;/script>")
    expect(html).toContain(`value="&quot;>&lt;img src=x onerror=alert(1)>"`)
  })
})

describe("the store down or slow: the components show a sentence, keep the account, and send nothing twice", () => {
  /** The memory adapter behind a switch: `down` fails every call, `slow` delays each by 300 ms. */
  function faulty() {
    const inner = MemoryAdapter()
    const state = { down: false, slow: false }
    const adapter = new Proxy(inner, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver)
        if (typeof value !== "function") return value
        return async (...args: unknown[]) => {
          if (state.down) throw new Error("connect ECONNREFUSED 10.0.0.5:5432")
          if (state.slow) await new Promise((resolve) => setTimeout(resolve, 300))
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    }) as Adapter
    return { adapter, state }
  }

  it("down: the problem is the outage's sentence in the store's language, the account shown stays", async () => {
    const { adapter, state } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    const client = clientOf(ada)
    const initialState = await client.state()
    const account = accountStore({ client, initialState, locale: "de" })
    state.down = true
    await act(account, "profile", () => client.updateProfile({ name: "Ada" }), "notice.saved")
    const seen = snapshot(account)
    expect(seen.problem).toBe("Der Anmeldedienst ist gerade nicht erreichbar. Es wurde nichts geändert; bitte versuche es gleich noch einmal.")
    expect(seen.notice).toBeUndefined()
    expect(seen.data).toBe(initialState)
    expect(seen.busy).toBe(false)
    const html = renderer("AccountNotices")({ account })
    expect(html).toContain("Der Anmeldedienst ist gerade nicht erreichbar")
    expect(html).not.toContain("ECONNREFUSED")
  })

  it("slow: busy while the action runs, and a second submission meanwhile is not sent", async () => {
    const { adapter, state } = faulty()
    const bed = testbed({ adapter })
    const ada = await bed.person("ada")
    const { client, posts } = counted(ada)
    const account = accountStore({ client, initialState: await client.state() })
    state.slow = true
    const first = act(account, "profile", () => client.updateProfile({ name: "Ada" }), "notice.saved")
    expect(snapshot(account).busy).toBe(true)
    await act(account, "profile", () => client.updateProfile({ name: "Eve" }), "notice.saved")
    await first
    expect(posts()).toBe(1)
    expect(snapshot(account)).toMatchObject({ busy: false, notice: "Saved.", data: { user: { name: "Ada" } } })
  })
})

describe("50 submissions at once", () => {
  it("through one component's store: one request, one result", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const others = await Promise.all(Array.from({ length: 3 }, () => ada.anotherSession()))
    expect(others).toHaveLength(3)
    const { client, posts } = counted(ada)
    const account = accountStore({ client, initialState: await client.state() })
    const victim = snapshot(account).data!.sessions!.find((s) => !s.current)!
    await Promise.all(Array.from({ length: 50 }, () => act(account, "sessions", () => client.revokeSession(victim.id), "notice.revoked")))
    expect(posts()).toBe(1)
    expect(snapshot(account)).toMatchObject({ busy: false, notice: "The session was signed out.", problem: undefined })
    expect(snapshot(account).data!.sessions).toHaveLength(3)
  })

  it("from 50 tabs (a store each): one revocation wins, the others say it was not found, and every tab ends idle", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await ada.anotherSession()
    const client = clientOf(ada)
    const initialState = await client.state()
    const victim = initialState.sessions!.find((s) => !s.current)!
    const tabs = Array.from({ length: 50 }, () => accountStore({ client: clientOf(ada), initialState }))
    await Promise.all(tabs.map((tab) => act(tab, "sessions", () => tab.client.revokeSession(victim.id), "notice.revoked")))
    const outcomes = tabs.map(snapshot)
    expect(outcomes.filter((o) => o.notice === "The session was signed out.")).toHaveLength(1)
    expect(outcomes.filter((o) => o.problem === "That item was not found.")).toHaveLength(49)
    expect(outcomes.every((o) => !o.busy)).toBe(true)
    expect((await client.state()).sessions).toHaveLength(1)
  })
})

/** The store's value now (the store contract: `subscribe` calls at once). */
function snapshot(store: { subscribe(run: (value: AccountSnapshot) => void): () => void }): AccountSnapshot {
  let value: AccountSnapshot | undefined
  store.subscribe((v) => (value = v))()
  return value!
}

/** A client of the actor's that counts the POSTs reaching the routes. */
function counted(actor: Actor) {
  let posts = 0
  const client = accountClient({
    basePath: "/auth",
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === "POST") posts++
      return actor.browser.request(String(input), init ?? {})
    }) as typeof fetch,
  })
  return { client, posts: () => posts }
}
