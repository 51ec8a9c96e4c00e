import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSqliteKysely, SqlAdapter } from "@portcullis/sql-adapter"
import { browserAvailable, completeDemoOidcLogin, continueWithEmail, launchChromium, openEmailedLink, startExample } from "../support.js"

/**
 * Issue 32, the attacker's pass over real HTTP: the demo `npm start` runs (embedded SQLite,
 * bans in its SQL store, the account center and the admin console on, Ada its admin), a
 * client that keeps its own cookies and sends what an attacker's page or script would. Each
 * attack asserts the refusal AND that nothing changed. Impersonation is another pass's.
 */

const entry = join(import.meta.dirname, "..", "..", "examples", "express", "src", "server.ts")
const ADMIN = "ada@example.com"

type Answer = { status: number; location: string | null; headers: Headers; text: string; json(): any }

/** A browser without JavaScript, or a script: its own cookie jar, the site's Origin unless told. */
class Client {
  readonly jar = new Map<string, string>()
  constructor(readonly base: string) {}

  async request(method: string, path: string, options: { form?: Record<string, string>; json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { origin: this.base, ...options.headers }
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ")
    let body: string | undefined = options.body
    if (options.form) {
      headers["content-type"] ??= "application/x-www-form-urlencoded"
      body = new URLSearchParams(options.form).toString()
    } else if (options.json !== undefined) {
      headers["content-type"] ??= "application/json"
      body = JSON.stringify(options.json)
    }
    if (headers.origin === "") delete headers.origin
    const response = await fetch(new URL(path, this.base), { method, headers, body, redirect: "manual" })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const at = pair.indexOf("=")
      const name = pair.slice(0, at)
      const value = pair.slice(at + 1)
      if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    const text = await response.text()
    return { status: response.status, location: response.headers.get("location"), headers: response.headers, text, json: () => JSON.parse(text) }
  }

  get = (path: string, headers: Record<string, string> = {}) => this.request("GET", path, { headers })

  async csrf(): Promise<string> {
    return (await this.get("/auth/csrf")).json().csrfToken
  }

  /** A JSON call with this session's CSRF token. */
  async post(path: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", path, { json: { ...fields, csrfToken: await this.csrf() }, headers })
  }

  /** A form post as the pages send it. */
  async form(path: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", path, { form: { ...fields, csrfToken: await this.csrf() }, headers })
  }

  async session(): Promise<{ userId: string; user: { email: string; name: string | null } } | null> {
    return (await this.get("/auth/session")).json()
  }

  /** Opens an emailed link as its reader does: the confirm page, then its one button. */
  async follow(link: string, typed: Record<string, string> = {}): Promise<Answer> {
    const page = await this.get(link)
    if (page.status !== 200) return page
    const form = /<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text)
    if (!form) return page
    const action = /action="([^"]+)"/.exec(form[0])?.[1]?.replace(/&amp;/g, "&") ?? link
    const fields = Object.fromEntries([...form[1]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]))
    return this.request("POST", action, { form: { ...fields, ...typed } })
  }
}

describe("issue 32 attacked over HTTP (the demo)", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let dataDir: string
  let adapter: ReturnType<typeof SqlAdapter>
  let db: ReturnType<typeof createSqliteKysely>
  const client = () => new Client(demo.url)

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "portcullis-issue32-"))
    demo = await startExample(entry, { ADMIN_EMAILS: ADMIN, DEMO_DATA_DIR: dataDir })
    // The same database file, for what HTTP cannot make without a real authenticator (passkeys).
    db = createSqliteKysely(join(dataDir, "portcullis.sqlite"))
    adapter = SqlAdapter(db, { sessionMetadata: true, passwords: true, auditTrail: true })
  }, 60_000)
  afterAll(async () => {
    await db?.destroy()
    await demo?.stop()
  })

  const output = () => demo.output.join("")
  /** Every link the mail catcher printed for `to`. */
  const links = (to: string) => [...output().matchAll(new RegExp(`\\[demo-smtp\\] sign-in link for ${to.replace(/[.+]/g, "\\$&")}: (\\S+)`, "g"))].map((m) => m[1]!)
  async function nextLink(to: string, before: number, part: string): Promise<string> {
    await expect.poll(() => links(to).filter((l) => l.includes(part)).length).toBeGreaterThan(before)
    return links(to).filter((l) => l.includes(part)).at(-1)!
  }

  /** A person signed in by an emailed link (so verified and freshly stepped up). */
  async function signedIn(email: string): Promise<Client> {
    const c = client()
    const before = links(email).filter((l) => l.includes("/callback/email")).length
    const sent = await c.form("/auth/signin/email", { email, callbackUrl: "/" })
    expect(sent.location, sent.text).toContain("/auth/verify-request")
    const done = await c.follow(await nextLink(email, before, "/callback/email"))
    expect(done.location, done.text.slice(0, 300)).not.toContain("error=")
    expect((await c.session())?.user.email).toBe(email)
    return c
  }

  /** A passkey row for `userId`, as a registration would store it (its account row too). */
  async function plantPasskey(userId: string, id: string): Promise<void> {
    await adapter.linkAccount!({ userId, type: "webauthn", provider: "passkey", providerAccountId: id })
    await adapter.createAuthenticator!({ credentialID: id, userId, providerAccountId: id, counter: 0, credentialBackedUp: true, credentialPublicKey: "AAAA", credentialDeviceType: "multiDevice", transports: "internal" })
  }

  describe("clickjacking: every new page refuses to be framed", () => {
    it("sign-in (both steps), re-authentication, account center, email confirm, admin list, user page and charts", async () => {
      const ada = await signedIn(ADMIN)
      const bob = await signedIn("frame-bob@example.com")
      const bobId = (await bob.session())!.userId
      const pages: [Client, string, "GET" | "POST"][] = [
        [client(), "/auth/signin", "GET"],
        [client(), "/auth/signin", "POST"],
        [bob, "/auth/reauthenticate", "GET"],
        [bob, "/auth/account", "GET"],
        [bob, "/auth/account?notice=saved", "GET"],
        [bob, "/auth/account/email/confirm?email=a%40example.com&token=00", "GET"],
        [ada, "/auth/admin", "GET"],
        [ada, `/auth/admin/users/${bobId}`, "GET"],
        [ada, "/auth/admin/charts", "GET"],
        [bob, "/auth/admin", "GET"],
      ]
      for (const [who, path, method] of pages) {
        const answer = method === "GET" ? await who.get(path, { accept: "text/html" }) : await who.form(path, { email: "someone@example.com" })
        expect(answer.status, `${method} ${path}`).toBeLessThan(500)
        expect(answer.headers.get("x-frame-options"), `${method} ${path}`).toBe("DENY")
        expect(answer.headers.get("content-security-policy") ?? "", `${method} ${path}`).toContain("frame-ancestors 'none'")
        expect(answer.headers.get("cache-control") ?? "", `${method} ${path}`).toContain("no-store")
      }
    })
  })

  describe("CSRF on every account and admin form", () => {
    const forgeries = (victim: Client, other: Client) => [
      ["no token", async (path: string, f: Record<string, string>) => victim.request("POST", path, { form: f })],
      ["a wrong token", async (path: string, f: Record<string, string>) => victim.request("POST", path, { form: { ...f, csrfToken: "forged|forged" } })],
      ["another session's token", async (path: string, f: Record<string, string>) => victim.request("POST", path, { form: { ...f, csrfToken: await other.csrf() } })],
      ["a cross-site Origin", async (path: string, f: Record<string, string>) => victim.request("POST", path, { form: { ...f, csrfToken: await victim.csrf() }, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } })],
      ["Origin null (a sandboxed frame)", async (path: string, f: Record<string, string>) => victim.request("POST", path, { form: { ...f, csrfToken: await victim.csrf() }, headers: { origin: "null" } })],
      ["a cross-site text/plain JSON body", async (path: string, f: Record<string, string>) => victim.request("POST", path, { body: JSON.stringify(f), headers: { "content-type": "text/plain", origin: "https://evil.example" } })],
    ] as const

    it("the account center's forms: refused 403, the user and their sessions unchanged", async () => {
      const victim = await signedIn("csrf-victim@example.com")
      const other = await signedIn("csrf-other@example.com")
      const id = (await victim.session())!.userId
      const paths = ["profile", "email", "password/set", "two-factor/start", "sessions/revoke-others", "delete", "accounts/demo-oidc/unlink", "passkeys/x/rename", "passkeys/x/remove"]
      const before = JSON.stringify(await adapter.getUser!(id))
      for (const path of paths) {
        for (const [what, forge] of forgeries(victim, other)) {
          const answer = await forge(`/auth/account/${path}`, { name: "Mallory", email: "mallory@example.com", password: "mallory's long passphrase here", confirm: "DELETE" })
          expect(answer.status, `${path}: ${what}`).toBe(403)
        }
      }
      expect(JSON.stringify(await adapter.getUser!(id))).toBe(before)
      expect((await victim.session())?.userId).toBe(id)
      expect(links("mallory@example.com")).toEqual([])
    })

    it("the admin console's forms: refused 403, no ban, sessions alive", async () => {
      const ada = await signedIn(ADMIN)
      const other = await signedIn("csrf-admin-other@example.com")
      const target = await signedIn("csrf-target@example.com")
      const targetId = (await target.session())!.userId
      for (const action of ["ban", "unban", "revoke", "reset-two-factor"]) {
        for (const [what, forge] of forgeries(ada, other)) {
          const answer = await forge(`/auth/admin/users/${targetId}/${action}`, { reason: "forged" })
          expect(answer.status, `${action}: ${what}`).toBe(403)
        }
      }
      const details = (await ada.get(`/auth/admin/api/users/${targetId}`)).json()
      expect(details.ban).toBeNull()
      expect((await target.session())?.userId).toBe(targetId)
    })
  })

  describe("IDOR: other people's ids", () => {
    it("another user's session id revokes nothing, and answers as an unknown id does", async () => {
      const bob = await signedIn("idor-bob@example.com")
      const eve = await signedIn("idor-eve@example.com")
      const bobSessionId = (await bob.get("/auth/account/state")).json().sessions[0].id
      const theirs = await eve.post(`/auth/account/sessions/${bobSessionId}/revoke`)
      const unknown = await eve.post(`/auth/account/sessions/${"0".repeat(bobSessionId.length)}/revoke`)
      expect(theirs.status).toBe(404)
      expect(theirs.text).toBe(unknown.text)
      expect((await bob.session())?.user.email).toBe("idor-bob@example.com")
    })

    it("another user's passkey is neither renamed nor removed, with the unknown id's answer", async () => {
      const bob = await signedIn("idor-pk-bob@example.com")
      const eve = await signedIn("idor-pk-eve@example.com")
      const bobId = (await bob.session())!.userId
      await plantPasskey(bobId, "bob-credential")
      for (const action of ["rename", "remove"]) {
        const theirs = await eve.post(`/auth/account/passkeys/bob-credential/${action}`, { name: "pwned" })
        const unknown = await eve.post(`/auth/account/passkeys/no-such-credential/${action}`, { name: "pwned" })
        expect(theirs.status, action).toBe(404)
        expect(theirs.text, action).toBe(unknown.text)
      }
      const kept = await adapter.getAuthenticator!("bob-credential")
      expect(kept?.userId).toBe(bobId)
      expect(kept?.name ?? null).toBeNull()
    })

    it("a provider id names only the caller's own linked account: nothing of another user's is unlinked", async () => {
      const bob = await signedIn("idor-link-bob@example.com")
      const eve = await signedIn("idor-link-eve@example.com")
      const bobId = (await bob.session())!.userId
      await adapter.linkAccount!({ userId: bobId, type: "oidc", provider: "demo-oidc", providerAccountId: "bob-at-oidc" })
      for (const provider of ["demo-oidc", "email", "passkey", "credentials", "..%2Fdemo-oidc", "nope"]) {
        const answer = await eve.post(`/auth/account/accounts/${provider}/unlink`)
        expect(answer.status, provider).toBe(404)
      }
      expect((await adapter.getUserByAccount!({ provider: "demo-oidc", providerAccountId: "bob-at-oidc" }))?.id).toBe(bobId)
    })

    it("a non-admin learns nothing of which user ids exist: the same 403 for a real id and a made-up one", async () => {
      const eve = await signedIn("idor-admin-eve@example.com")
      const bob = await signedIn("idor-admin-bob@example.com")
      const bobId = (await bob.session())!.userId
      for (const path of ["/auth/admin/api/users/", "/auth/admin/users/"]) {
        const real = await eve.get(path + bobId, { accept: path.includes("api") ? "application/json" : "text/html" })
        const fake = await eve.get(path + crypto.randomUUID(), { accept: path.includes("api") ? "application/json" : "text/html" })
        expect(real.status, path).toBe(403)
        expect(real.text.replaceAll(bobId, "ID"), path).toBe(fake.text.replace(/[0-9a-f-]{36}/g, "ID"))
      }
    })
  })

  describe("a non-admin and a signed-out caller on every admin route", () => {
    it("is refused (403 / 401 / sign-in redirect), and nothing changes", async () => {
      const eve = await signedIn("nonadmin-eve@example.com")
      const bob = await signedIn("nonadmin-bob@example.com")
      const bobId = (await bob.session())!.userId
      const gets = ["/auth/admin", "/auth/admin/charts", `/auth/admin/users/${bobId}`, "/auth/admin/open?id=x", "/auth/admin/api/users", `/auth/admin/api/users/${bobId}`, "/auth/admin/api/stats"]
      const posts = ["ban", "unban", "revoke", "reset-two-factor"].map((a) => `/auth/admin/users/${bobId}/${a}`)
      const signedOut = client()
      for (const path of gets) {
        expect((await eve.get(path)).status, `eve GET ${path}`).toBe(403)
        const anon = await signedOut.get(path)
        expect([302, 401], `anon GET ${path}`).toContain(anon.status)
        if (anon.status === 302) expect(anon.location).toContain("/auth/signin")
      }
      for (const path of posts) {
        expect((await eve.post(path, { reason: "spam" })).status, `eve POST ${path} (JSON)`).toBe(403)
        expect((await eve.form(path, { reason: "spam" })).status, `eve POST ${path} (form)`).toBe(403)
        expect([401, 403], `anon POST ${path}`).toContain((await signedOut.post(path, { reason: "spam" })).status)
      }
      expect((await bob.session())?.userId).toBe(bobId)
      const ada = await signedIn(ADMIN)
      expect((await ada.get(`/auth/admin/api/users/${bobId}`)).json().ban).toBeNull()
    })
  })

  describe("a banned user through each provider kind", () => {
    it("loses every session at once, and is refused by email link, password and credentials (with the right secret)", async () => {
      const ada = await signedIn(ADMIN)
      // Carol: a password account (signed up, verified by the mailed link) who also uses email links.
      const carolEmail = "banned-carol@example.com"
      const password = "a perfectly long passphrase for carol"
      const signup = client()
      const before = links(carolEmail).length
      const made = await signup.form("/auth/password/signup", { email: carolEmail, password })
      expect(made.status, made.text.slice(0, 200)).toBe(302)
      const verified = await signup.follow(await nextLink(carolEmail, before, "/password/"), { password })
      expect(verified.status).toBeLessThan(400)
      const carol = client()
      const first = await carol.form("/auth/callback/password", { email: carolEmail, password, callbackUrl: "/" })
      expect(first.location, `${verified.status} ${verified.location} ${links(carolEmail).join(" ")}`).not.toContain("error=")
      const carolId = (await carol.session())!.userId
      const carolByLink = await signedIn(carolEmail)
      // The demo user (credentials: demo / portcullis), not an admin in this run.
      const demoUser = client()
      expect((await demoUser.form("/auth/callback/credentials", { username: "demo", password: "portcullis" })).location).not.toContain("error=")
      const demoId = (await demoUser.session())!.userId

      for (const id of [carolId, demoId]) {
        const banned = await ada.post(`/auth/admin/users/${id}/ban`, { reason: "spam" })
        expect(banned.status, banned.text).toBe(200)
      }
      expect(await carol.session()).toBeNull()
      expect(await carolByLink.session()).toBeNull()
      expect(await demoUser.session()).toBeNull()
      expect((await carol.post("/auth/account/profile", { name: "still here?" })).status).toBe(401)

      const byPassword = client()
      const refused = await byPassword.form("/auth/callback/password", { email: carolEmail, password, callbackUrl: "/" })
      expect(refused.location).toContain("error=AccountSuspended")
      expect(await byPassword.session()).toBeNull()
      // With a wrong password the ban is not told: the wrong password's answer.
      const wrong = await client().form("/auth/callback/password", { email: carolEmail, password: "not carol's passphrase at all", callbackUrl: "/" })
      expect(wrong.location).toContain("error=CredentialsSignin")

      const byLink = client()
      const linksBefore = links(carolEmail).filter((l) => l.includes("/callback/email")).length
      await byLink.form("/auth/signin/email", { email: carolEmail, callbackUrl: "/" })
      const opened = await byLink.follow(await nextLink(carolEmail, linksBefore, "/callback/email"))
      expect(opened.location).toContain("error=AccountSuspended")
      expect(await byLink.session()).toBeNull()

      const byCredentials = client()
      expect((await byCredentials.form("/auth/callback/credentials", { username: "demo", password: "portcullis" })).location).toContain("error=AccountSuspended")
      expect(await byCredentials.session()).toBeNull()

      const page = await client().get("/auth/signin?error=AccountSuspended", { accept: "text/html", "accept-language": "de" })
      expect(page.text).not.toContain("spam")
    })
  })

  describe("two instances, one database (the demo started twice on one data directory)", () => {
    let second: Awaited<ReturnType<typeof startExample>>
    beforeAll(async () => {
      second = await startExample(entry, { ADMIN_EMAILS: ADMIN, DEMO_DATA_DIR: dataDir })
    }, 60_000)
    afterAll(() => second?.stop())

    it("a ban on one ends the sessions made on the other, and the other refuses the next sign-in", async () => {
      const ada = await signedIn(ADMIN)
      const secondLinks = (to: string) => [...second.output.join("").matchAll(new RegExp(`\\[demo-smtp\\] sign-in link for ${to.replace(/[.+]/g, "\\$&")}: (\\S+)`, "g"))].map((m) => m[1]!)
      const onSecond = async (email: string) => {
        const c = new Client(second.url)
        const before = secondLinks(email).length
        await c.form("/auth/signin/email", { email, callbackUrl: "/" })
        await expect.poll(() => secondLinks(email).length).toBeGreaterThan(before)
        return { client: c, done: await c.follow(secondLinks(email).at(-1)!) }
      }
      const { client: dan } = await onSecond("two-instances-dan@example.com")
      const danId = (await dan.session())!.userId
      expect((await ada.post(`/auth/admin/users/${danId}/ban`, { reason: "spam" })).status).toBe(200)
      expect(await dan.session()).toBeNull()
      const again = await onSecond("two-instances-dan@example.com")
      expect(again.done.location).toContain("error=AccountSuspended")
      expect(await again.client.session()).toBeNull()
    })
  })

  describe.runIf(browserAvailable())("a banned user with a passkey (Chromium, a virtual authenticator)", () => {
    it("is refused at the passkey's callback with the suspended message, and gets no session", async () => {
      const ada = await signedIn(ADMIN)
      const email = "passkey-banned@example.com"
      const browser = await launchChromium()
      try {
        const context = await browser.newContext()
        const page = await context.newPage()
        const cdp = await context.newCDPSession(page)
        await cdp.send("WebAuthn.enable")
        await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } })
        // Signed in by a link, a passkey added from the account center.
        await page.goto(`${demo.url}/auth/signin`)
        const before = links(email).filter((l) => l.includes("/callback/email")).length
        await continueWithEmail(page, email)
        await page.locator('form[action$="/auth/signin/email"] button[type="submit"]').click()
        await page.waitForURL(/verify-request/)
        await openEmailedLink(page, await nextLink(email, before, "/callback/email"))
        await page.goto(`${demo.url}/auth/account`)
        await page.click("#add-passkey")
        await page.waitForURL(/notice=passkeyAdded/)
        const userId = (await page.evaluate(() => fetch("/auth/session").then((r) => r.json()))).userId as string
        expect((await adapter.listAuthenticatorsByUserId!(userId)).length).toBe(1)
        // The control: signed out, the passkey signs in.
        await context.clearCookies()
        await page.goto(`${demo.url}/auth/signin`)
        await continueWithEmail(page, email)
        await page.getByRole("button", { name: "Sign in with Passkey" }).click()
        await expect.poll(async () => (await page.evaluate(() => fetch("/auth/session").then((r) => r.json())))?.userId ?? null).toBe(userId)
        // Banned: every session ends, and the passkey no longer signs in.
        expect((await ada.post(`/auth/admin/users/${userId}/ban`, { reason: "spam" })).status).toBe(200)
        expect(await page.evaluate(() => fetch("/auth/session").then((r) => r.json()))).toBeNull()
        await page.goto(`${demo.url}/auth/signin`)
        await continueWithEmail(page, email)
        await page.getByRole("button", { name: "Sign in with Passkey" }).click()
        await page.waitForURL(/error=AccountSuspended/)
        expect(await page.evaluate(() => fetch("/auth/session").then((r) => r.json()))).toBeNull()
        expect(await page.locator("body").textContent()).not.toContain("spam")
        await context.close()
      } finally {
        await browser.close()
      }
    }, 90_000)
  })

  describe("the last way in", () => {
    it("fifty removals racing for the last two passkeys leave one (the SQL lock, across requests)", async () => {
      // Someone signed in by a link, whose address then counts no more (unverified, as an
      // address changed outside the app would be): the two passkeys are their only ways in.
      const user = await signedIn("race-last@example.com")
      const session = (await user.session())!
      await adapter.updateUser!({ id: session.userId, emailVerified: null })
      await plantPasskey(session.userId, "race-one")
      await plantPasskey(session.userId, "race-two")
      expect((await user.get("/auth/account/state")).json().waysIn.count).toBe(2)
      const token = await user.csrf()
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => user.request("POST", `/auth/account/passkeys/race-${i % 2 ? "two" : "one"}/remove`, { json: { csrfToken: token } })),
      )
      const statuses = answers.map((a) => a.status)
      expect(statuses.filter((s) => s === 200)).toHaveLength(1)
      // The rest: the last way in (409), or the one already gone (404); a 409 "busy" is a lock that waited too long, also nothing removed.
      expect(statuses.every((s) => s === 200 || s === 404 || s === 409), statuses.join(",")).toBe(true)
      expect(answers.some((a) => a.status === 409 && a.json().error === "last-way-in")).toBe(true)
      expect((await adapter.listAuthenticatorsByUserId!(session.userId)).length).toBe(1)
    })
  })

  describe("step-up", () => {
    it("a session revoked from another loses its mark with it: the old cookie opens nothing sensitive", async () => {
      const first = await signedIn("stepup-bob@example.com")
      const copy = client()
      for (const [k, v] of first.jar) copy.jar.set(k, v)
      const second = await signedIn("stepup-bob@example.com")
      expect((await second.post("/auth/account/sessions/revoke-others")).json().revoked).toBeGreaterThanOrEqual(1)
      for (const path of ["sessions/revoke-others", "password/set", "two-factor/start", "delete"]) {
        const answer = await copy.post(`/auth/account/${path}`, { password: "a long enough new passphrase", confirm: "DELETE" })
        expect(answer.status, path).toBe(401)
      }
      expect((await second.session())?.user.email).toBe("stepup-bob@example.com")
    })
  })

  describe("account enumeration through the identifier-first step", () => {
    it("answers a known and an unknown address alike at every step", async () => {
      await signedIn("enum-known@example.com")
      const shape = (text: string, email: string) => text.replaceAll(email, "EMAIL").replace(/value="[^"]*csrf[^"]*"/gi, "").replace(/name="csrfToken" value="[^"]*"/g, "").replace(/nonce="[^"]*"/g, "")
      const c = client()
      const known = await c.form("/auth/signin", { email: "enum-known@example.com" })
      const unknown = await c.form("/auth/signin", { email: "enum-nobody@example.com" })
      expect(known.status).toBe(unknown.status)
      expect(shape(known.text, "enum-known@example.com")).toBe(shape(unknown.text, "enum-nobody@example.com"))
      // The emailed link's request: the same redirect for both.
      const a = await c.form("/auth/signin/email", { email: "enum-known@example.com", callbackUrl: "/" })
      const b = await c.form("/auth/signin/email", { email: "enum-nobody@example.com", callbackUrl: "/" })
      expect(a.status).toBe(b.status)
      expect(a.location?.replace(/enum-known/g, "X")).toBe(b.location?.replace(/enum-nobody/g, "X"))
      // A wrong password: the same refusal for an address with an account and one without.
      const p1 = await c.form("/auth/callback/password", { email: "enum-known@example.com", password: "a wrong but long passphrase", callbackUrl: "/" })
      const p2 = await c.form("/auth/callback/password", { email: "enum-nobody@example.com", password: "a wrong but long passphrase", callbackUrl: "/" })
      expect(p1.location).toBe(p2.location)
    })

    it("the email change answers a taken address as it does a free one", async () => {
      await signedIn("enum-taken@example.com")
      const bob = await signedIn("enum-changer@example.com")
      const taken = await bob.post("/auth/account/email", { email: "enum-taken@example.com" })
      const free = await bob.post("/auth/account/email", { email: "enum-free@example.com" })
      expect(taken.status).toBe(200)
      expect(taken.text).toBe(free.text)
      expect((await bob.session())?.user.email).toBe("enum-changer@example.com")
    })
  })

  describe("email change over HTTP", () => {
    it("a token works once, for its user and its address only", async () => {
      const bob = await signedIn("change-bob@example.com")
      const eve = await signedIn("change-eve@example.com")
      const before = links("change-bob-new@example.com").length
      expect((await bob.post("/auth/account/email", { email: "change-bob-new@example.com" })).status).toBe(200)
      const link = new URL(await nextLink("change-bob-new@example.com", before, "/account/email/confirm"))
      const token = link.searchParams.get("token")!
      // Eve, with Bob's token: nothing.
      expect((await eve.post("/auth/account/email/confirm", { email: "change-bob-new@example.com", token })).status).toBe(410)
      // Bob, with his token for another address: nothing.
      expect((await bob.post("/auth/account/email/confirm", { email: "change-eve@example.com", token })).status).toBe(410)
      expect((await bob.post("/auth/account/email/confirm", { email: "change-bob-new@example.com", token })).status).toBe(200)
      expect((await bob.post("/auth/account/email/confirm", { email: "change-bob-new@example.com", token })).status).toBe(410)
      expect((await bob.session())?.user.email).toBe("change-bob-new@example.com")
      expect((await eve.session())?.user.email).toBe("change-eve@example.com")
    })
  })

  describe("hostile input", () => {
    it("HTML and script in a name are text on every page that shows it", async () => {
      const ada = await signedIn(ADMIN)
      const eve = await signedIn("xss-eve@example.com")
      const name = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>`
      expect((await eve.post("/auth/account/profile", { name })).status).toBe(200)
      const id = (await eve.session())!.userId
      for (const [who, path] of [[eve, "/auth/account"], [ada, "/auth/admin"], [ada, "/auth/admin?q=xss-eve"], [ada, `/auth/admin/users/${id}`], [ada, "/auth/admin/charts"]] as const) {
        const page = await who.get(path, { accept: "text/html" })
        expect(page.status, path).toBe(200)
        expect(page.text, path).not.toContain("<script>alert(1)")
        expect(page.text, path).not.toContain("<img src=x")
      }
    })

    it("a User-Agent and a forwarded address carrying HTML are text on the account and admin pages", async () => {
      const ada = await signedIn(ADMIN)
      const mallory = await signedIn("ua-mallory@example.com")
      const hostile = { "user-agent": "<script>alert(1)</script><img src=x onerror=alert(2)> Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/<b>120</b>.0", "x-forwarded-for": "<script>alert(3)</script>" }
      // A second session from the hostile browser, so its User-Agent is on record.
      const copy = client()
      const before = links("ua-mallory@example.com").filter((l) => l.includes("/callback/email")).length
      await copy.request("POST", "/auth/signin/email", { form: { email: "ua-mallory@example.com", callbackUrl: "/", csrfToken: await copy.csrf() }, headers: hostile })
      const link = await nextLink("ua-mallory@example.com", before, "/callback/email")
      const page = await copy.request("GET", link, { headers: hostile })
      const action = /action="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, "&")
      const fields = Object.fromEntries([...page.text.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]))
      await copy.request("POST", action, { form: fields, headers: hostile })
      const id = (await mallory.session())!.userId
      // The control: the hostile User-Agent is on record, so the pages below do show it.
      expect((await mallory.get("/auth/account/state")).json().sessions.some((s: { userAgent: string | null }) => s.userAgent?.includes("<script>"))).toBe(true)
      for (const [who, path] of [[mallory, "/auth/account"], [ada, `/auth/admin/users/${id}`], [ada, "/auth/admin/charts"]] as const) {
        const answer = await who.get(path, { accept: "text/html" })
        expect(answer.status, path).toBe(200)
        expect(answer.text, path).not.toMatch(/<script>alert|<img src=x|<b>120/)
      }
    })

    it("a callbackUrl or id pointing away keeps every redirect and form on the site", async () => {
      const c = client()
      const site = new URL(demo.url).origin
      for (const away of ["javascript:alert(1)", "https://evil.example/x", "//evil.example", "/\\evil.example", "\"><script>alert(1)</script>"]) {
        const step = await c.form("/auth/signin", { email: "away@example.com", callbackUrl: away })
        const get = await c.get(`/auth/signin?callbackUrl=${encodeURIComponent(away)}`, { accept: "text/html" })
        for (const answer of [step, get]) {
          expect(answer.text, away).not.toContain("<script>alert")
          for (const m of answer.text.matchAll(/name="callbackUrl" value="([^"]*)"/g)) expect(new URL(m[1]!.replace(/&amp;/g, "&")).origin, away).toBe(site)
        }
        for (const path of [`/auth/reauthenticate?callbackUrl=${encodeURIComponent(away)}`, `/auth/admin/open?id=${encodeURIComponent(away)}`]) {
          const answer = await c.get(path)
          if (answer.location) expect(new URL(answer.location).origin, path).toBe(site)
          if (answer.location) expect(decodeURIComponent(new URL(answer.location).searchParams.get("callbackUrl") ?? site).startsWith(site), path).toBe(true)
        }
      }
    })

    it("huge bodies and params, bad cursors and filters, odd ids: 4xx, never 500, and no stack in the log", async () => {
      const ada = await signedIn(ADMIN)
      const bob = await signedIn("hostile-bob@example.com")
      const answers: [string, Answer][] = []
      const huge = "x".repeat(2_000_000)
      // A body past the server's limit may be answered 413 and the connection closed before
      // the client finished sending: a refusal either way, never a 500.
      const refusedOrAnswer = (request: Promise<Answer>) => request.catch((error: Error & { cause?: { code?: string } }) => {
        if (error.cause?.code !== "ECONNRESET" && error.cause?.code !== "EPIPE") throw error
        return { status: 413, location: null, headers: new Headers(), text: "(connection closed by the server)", json: () => null }
      })
      answers.push(["huge form", await refusedOrAnswer(bob.request("POST", "/auth/account/profile", { form: { name: huge, csrfToken: await bob.csrf() } }))])
      answers.push(["huge JSON", await refusedOrAnswer(bob.request("POST", "/auth/account/profile", { json: { name: huge, csrfToken: await bob.csrf() } }))])
      answers.push(["a long name", await bob.post("/auth/account/profile", { name: "x".repeat(50_000) })])
      answers.push(["name as an object", await bob.post("/auth/account/profile", { name: { toString: 1 } })])
      answers.push(["name as an array", await bob.post("/auth/account/profile", { name: ["a", "b"] })])
      answers.push(["malformed JSON", await bob.request("POST", "/auth/account/profile", { body: "{\"name\":", headers: { "content-type": "application/json", "x-csrf-token": await bob.csrf() } })])
      answers.push(["huge identifier", await client().form("/auth/signin", { email: huge.slice(0, 100_000) })])
      answers.push(["a long session id", await bob.post(`/auth/account/sessions/${"a".repeat(8_000)}/revoke`)])
      answers.push(["a long passkey id", await bob.post(`/auth/account/passkeys/${"a".repeat(8_000)}/rename`, { name: "x" })])
      for (const q of ["cursor=%00", `cursor=${"a".repeat(5_000)}`, "limit=-1", "limit=1e3", "verified=maybe", "banned=%F0", `q=${"x".repeat(10_000)}`, "q=%E0%A4%A", "q[]=a", "q=%00", "days=abc"]) {
        answers.push([`list ${q.slice(0, 24)}`, await ada.get(`/auth/admin/api/users?${q}`)])
        answers.push([`page ${q.slice(0, 24)}`, await ada.get(`/auth/admin?${q}`, { accept: "text/html" })])
      }
      // A cursor is a user id (the page after it): one shaped like an id is a page, maybe empty.
      const idShaped = await ada.get("/auth/admin/api/users?cursor=eyJ9")
      expect(idShaped.status).toBe(200)
      for (const days of ["0", "91", "-1", "1.5", "abc", "9".repeat(50)]) answers.push([`stats ${days}`, await ada.get(`/auth/admin/api/stats?days=${days}`)])
      for (const id of ["%00", "a".repeat(8_000), "..%2F..%2Fcsrf", "%E2%80%AE", "'%20OR%201=1--"]) answers.push([`user ${id.slice(0, 20)}`, await ada.get(`/auth/admin/api/users/${id}`)])
      answers.push(["ban: no reason", await ada.post(`/auth/admin/users/${(await bob.session())!.userId}/ban`, { reason: "" })])
      answers.push(["ban: NUL reason", await ada.post(`/auth/admin/users/${(await bob.session())!.userId}/ban`, { reason: "a\u0000b" })])
      answers.push(["ban: bad duration", await ada.post(`/auth/admin/users/${(await bob.session())!.userId}/ban`, { reason: "x", duration: "1e9" })])
      answers.push(["ban: past expiry", await ada.post(`/auth/admin/users/${(await bob.session())!.userId}/ban`, { reason: "x", expires: "1999-01-01" })])
      answers.push(["ban: huge reason", await ada.post(`/auth/admin/users/${(await bob.session())!.userId}/ban`, { reason: "x".repeat(100_000) })])
      // Text that is merely odd (a broken percent escape, a bracketed name) is a search like any other.
      const lenient = new Set(["list q=%E0%A4%A", "page q=%E0%A4%A", "list q[]=a", "page q[]=a", "list days=abc", "page days=abc"])
      for (const [what, answer] of answers) {
        if (!lenient.has(what)) expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400)
        expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).toBeLessThan(500)
        expect(answer.text, what).not.toMatch(/\n\s+at [\w.<>]+ \(/)
      }
      expect((await ada.get(`/auth/admin/api/users/${(await bob.session())!.userId}`)).json().ban).toBeNull()
      expect(output()).not.toMatch(/\n\s+at [\w.<>]+ \(.*node_modules|\n\s+at [\w.<>]+ \(.*packages\//)
    })

    it("the demo's log holds no session token, CSRF token or password", async () => {
      const bob = await signedIn("secrets-bob@example.com")
      await bob.form("/auth/callback/password", { email: "secrets-bob@example.com", password: "hunter2 is my long password", callbackUrl: "/" })
      const log = output()
      expect(log).not.toContain(bob.jar.get("authjs.session-token")!)
      expect(log).not.toContain("hunter2 is my long password")
      expect(log).not.toContain((await bob.csrf()).split("|")[0]!)
    })
  })
})

/**
 * The same demo with its rate limits on (as `npm start` runs it; the suite's NODE_ENV=test
 * turns them off): the account center's guesses count on the sign-in's counters.
 */
describe("issue 32 attacked over HTTP: guessing, with the demo's limits on", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  beforeAll(async () => {
    demo = await startExample(entry, { ADMIN_EMAILS: ADMIN, NODE_ENV: "development" })
  }, 60_000)
  afterAll(() => demo?.stop())

  const links = (to: string) => [...demo.output.join("").matchAll(new RegExp(`\\[demo-smtp\\] sign-in link for ${to.replace(/[.+]/g, "\\$&")}: (\\S+)`, "g"))].map((m) => m[1]!)

  async function signedIn(email: string): Promise<Client> {
    const c = new Client(demo.url)
    const before = links(email).length
    await c.form("/auth/signin/email", { email, callbackUrl: "/" })
    await expect.poll(() => links(email).length).toBeGreaterThan(before)
    await c.follow(links(email).at(-1)!)
    expect((await c.session())?.user.email).toBe(email)
    return c
  }

  it("a stolen cookie guessing the current password through password change is locked out, the right one included", async () => {
    const bob = await signedIn("guess-bob@example.com")
    const right = "the correct long passphrase 42"
    expect((await bob.post("/auth/account/password/set", { password: right })).status).toBe(200)
    const thief = new Client(demo.url)
    for (const [k, v] of bob.jar) thief.jar.set(k, v)
    const statuses: number[] = []
    for (let i = 0; i < 15; i++) statuses.push((await thief.post("/auth/account/password/change", { currentPassword: `guess number ${i}`, password: `the thief's passphrase ${i}` })).status)
    expect(statuses).toContain(429)
    expect(statuses.filter((s) => s !== 429 && s !== 400)).toEqual([])
    const during = await thief.post("/auth/account/password/change", { currentPassword: right, password: "the thief's passphrase at last" })
    expect(during.status).toBe(429)
    // The owner's password is unchanged: a password sign-in with it is refused only by the lockout, never as a wrong password.
    const signIn = await new Client(demo.url).form("/auth/callback/password", { email: "guess-bob@example.com", password: "the thief's passphrase at last", callbackUrl: "/" })
    expect(signIn.location).toContain("error=")
  })

  // Here, on a database where the demo account has never signed in any other way.
  it.runIf(browserAvailable())("a banned user through OpenID Connect (the demo's provider, in Chromium) is refused with no session", async () => {
    const ada = await signedIn(ADMIN)
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const issuer = /provider at (http:\/\/\S+)\)/.exec(demo.output.join(""))![1]!
      const session = () => page.evaluate(() => fetch("/auth/session").then((r) => r.json()))
      await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await page.getByRole("button", { name: /sign in with demo oidc/i }).click()
      await completeDemoOidcLogin(page, issuer, demo.url + "/")
      const userId = (await session()).userId as string
      expect((await ada.post(`/auth/admin/users/${userId}/ban`, { reason: "spam" })).status).toBe(200)
      expect(await session()).toBeNull()
      await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await page.getByRole("button", { name: /sign in with demo oidc/i }).click()
      // The provider remembers its login: straight back to the callback, which refuses.
      await page.waitForURL(/error=AccountSuspended/, { timeout: 15_000 }).catch(async () => {
        if (page.url().startsWith(issuer)) {
          await page.locator('input[name="login"]').fill("demo").catch(() => {})
          await page.locator('input[name="password"]').fill("any password").catch(() => {})
          await page.locator('button[type="submit"]').click()
        }
        await page.waitForURL(/error=AccountSuspended/)
      })
      expect(await session()).toBeNull()
    } finally {
      await browser.close()
    }
  }, 90_000)

  it("email change mails at most five times an hour, whoever asks", async () => {
    const bob = await signedIn("mailbomb-bob@example.com")
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await bob.post("/auth/account/email", { email: "victim-inbox@example.com" })).status)
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(statuses.slice(5)).toEqual([429, 429, 429])
    await new Promise((r) => setTimeout(r, 300))
    expect(links("victim-inbox@example.com")).toHaveLength(5)
  })
})
