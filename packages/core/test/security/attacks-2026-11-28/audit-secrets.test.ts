/**
 * Secrets an attacker (or a victim's browser) puts into requests that end in an audit record
 * (issue 29): OAuth `code`, `state` and `error_description`, a provider id in the path, a
 * magic-link and a reset token, a password, bearer and cookie headers, a CSRF token. Each is a
 * distinctive value; every stored record is then searched for every one of them. On memory,
 * SQLite, PostgreSQL and Redis.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { AuditEvent } from "@portcullis/core/adapters"
import { auditTrail } from "@portcullis/core/integration"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Password from "@portcullis/core/providers/password"
import { Browser, SECRET } from "../../helpers.js"
import { FakeOP } from "../../oauth/fixtures/fake-op.js"
import { deliver, startSignIn } from "../../oauth/flow.js"
import { LIGHT, passwordSignIn, postStep, seedUser } from "../../password/support.js"
import { onEveryBackend, type Backend } from "./audit-backends.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

onEveryBackend((label, open) => {
  let backend: Backend
  let op: FakeOP
  beforeAll(async () => {
    backend = await open()
    op = await FakeOP.start()
  })
  afterAll(async () => {
    await op?.close()
    await backend?.close()
  })

  it(`no stored record holds a code, state, token, password, cookie or header value a refused request carried (${label})`, { timeout: 60_000 }, async () => {
    const mark = () => `zz${crypto.randomUUID().replace(/-/g, "")}`
    const secrets: Record<string, string> = {}
    const s = (name: string) => (secrets[name] = mark())
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: false,
      trustedOrigins: ["http://localhost:3000"],
      adapter: backend.adapter,
      providers: [
        Password({ hashing: LIGHT }),
        Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async () => {} }),
        { id: "alpha", name: "Alpha", type: "oidc", issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>,
      ],
      rateLimit: false,
      logger: quiet,
    }
    const auth = createAuth(config)
    const since = new Date(Date.now() - 1_000)
    const browser = () =>
      new Browser(async (request) => {
        const headers = new Headers(request.headers)
        headers.set("authorization", `Bearer ${secrets.bearer ?? s("bearer")}`)
        headers.set("x-csrf-token", secrets.header ?? s("header"))
        headers.append("cookie", `app-session=${secrets.cookie ?? s("cookie")}`)
        return auth.handle(new Request(request, { headers }), { clientAddress: "192.0.2.44" })
      })

    // A wrong password, with the CSRF token of the form, and a password that is a secret.
    const email = `sec-${crypto.randomUUID().slice(0, 8)}@example.com`
    await seedUser(backend.adapter, { email, password: "the right passphrase of this user" })
    const b = browser()
    const csrf = await b.csrfToken()
    secrets.csrf = csrf.split("|")[0]!
    expect((await passwordSignIn(b, { email, password: s("password") })).error).toBe("CredentialsSignin")

    // A forged magic link and a forged reset.
    await browser().request(`/auth/callback/email?token=${s("linkToken")}&email=${encodeURIComponent(email)}`)
    await postStep(browser(), "reset", { token: s("resetToken"), email, password: "violet tractor sandwich orbit again" })

    // OAuth: a callback with a stolen code and a forged state; the provider's error with a
    // description; a provider id in the path that is none of ours.
    const oauth = browser()
    await startSignIn(oauth, "alpha")
    await deliver(oauth, new URL(`http://localhost:3000/auth/callback/alpha?code=${s("code")}&state=${s("state")}`))
    await deliver(browser(), new URL(`http://localhost:3000/auth/callback/alpha?error=access_denied&error_description=${s("description")}&state=${s("state2")}`))
    await browser().request(`/auth/callback/${s("pathProvider")}?code=${s("code2")}`)

    const stored: AuditEvent[] = []
    let page = await auditTrail(config, { since, limit: 100 })
    stored.push(...page.records)
    while (page.next) {
      page = await auditTrail(config, { since, limit: 100, cursor: page.next })
      stored.push(...page.records)
    }
    const mine = stored.filter((r) => r.ip === "192.0.2.44")
    // Each refusal was recorded (so the search below searched something).
    expect(mine.filter((r) => r.type === "signInFailed").length).toBeGreaterThanOrEqual(4)
    const text = JSON.stringify(mine)
    for (const [name, value] of Object.entries(secrets)) expect(text, `the ${name} is in a stored record`).not.toContain(value)
    expect(text).not.toContain("zz")
  })
})
