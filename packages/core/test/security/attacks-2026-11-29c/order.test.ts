/**
 * Attack class 5 (order) on fee586c3: the new pre-creation ask comes after the app's `signIn`
 * callback, as the session's ask always did — a callback that refuses still wins with its own
 * error (`AccessDenied`), a callback that redirects still sends the browser where it says,
 * and in both cases the gates are not asked at all and nothing is created, whatever they
 * would have answered. Checked for every kind that now asks before writing: credentials with
 * database sessions, the email link (request and callback), an OAuth first sign-in, a
 * passkey sign-up and an extension's `req.signIn`.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import type { ExtensionSignInOutcome } from "@portcullis/core/extension"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET, credentialsConfig, direct } from "../../helpers.js"
import { openLink, requestLink } from "../../email/support.js"
import { signInThrough, useFakeOP } from "../../oauth/flow.js"
import { ORIGIN, PasskeyBrowser } from "../../webauthn/support.js"
import { SoftCredential } from "../../webauthn/soft-authenticator.js"
import { identity, ssoExtension } from "../../extensions/sso-probe.js"
import { allUsers, answerOf, hasSession, policy, quiet } from "./support.js"

/** The callback's verdicts under test: a refusal, and a redirect elsewhere. */
const VERDICTS = [
  { name: "refuses", signIn: () => false, expect: (r: Response) => expect(answerOf(r)).toMatchObject({ path: "/auth/error", error: "AccessDenied" }) },
  { name: "redirects", signIn: () => "/not-yet", expect: (r: Response) => expect(r.headers.get("location")).toBe("http://localhost:3000/not-yet") },
] as const

describe.each(VERDICTS)("the app's signIn callback $name before a gate that would refuse everything", (verdict) => {
  const holder = useFakeOP()
  const refusingGate = () => policy(() => true)
  const callbacks = { signIn: verdict.signIn as never }

  it("credentials with database sessions: the callback's answer, the gate never asked, no user", async () => {
    const gate = refusingGate()
    const adapter = MemoryAdapter()
    const b = new Browser(direct(credentialsConfig({ adapter, session: { strategy: "database" }, rateLimit: false, logger: quiet, callbacks, ...gate.config })))
    verdict.expect(await b.signIn())
    expect(gate.state.asked).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
    expect(hasSession(b)).toBe(false)
  })

  it("email link request: the callback's answer, no mail, the gate never asked", async () => {
    const gate = refusingGate()
    const links: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      rateLimit: false,
      logger: quiet,
      callbacks,
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    verdict.expect(await requestLink(new Browser(direct(config)), "ada@example.com"))
    expect(links).toEqual([])
    expect(gate.state.asked).toEqual([])
  })

  it("email link callback (the link mailed while everything allowed): the callback's answer, the gate never asked, no user", async () => {
    const gate = policy(() => false)
    const adapter = MemoryAdapter()
    const links: string[] = []
    let verdictNow: () => boolean | string = () => true
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      rateLimit: false,
      logger: quiet,
      callbacks: { signIn: () => verdictNow() },
      providers: [Nodemailer({ id: "email", server: "smtp://127.0.0.1:1", from: "auth@example.com", interstitial: false, sendVerificationRequest: async ({ url }) => void links.push(url) })],
      ...gate.config,
    }
    const b = new Browser(direct(config))
    await requestLink(b, "ada@example.com")
    expect(links).toHaveLength(1)
    verdictNow = verdict.signIn
    gate.state.refuses = () => true
    gate.state.asked.length = 0
    verdict.expect(await openLink(b, new URL(links[0]!).pathname + new URL(links[0]!).search))
    expect(gate.state.asked).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
    expect(hasSession(b)).toBe(false)
  })

  it("OAuth first sign-in: the callback's answer, the gate never asked, no user, no account", async () => {
    const gate = refusingGate()
    const adapter = MemoryAdapter()
    const fake = { id: "fake", name: "Fake", type: "oidc", issuer: holder.op.issuer, clientId: holder.op.clientId, clientSecret: holder.op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, logger: quiet, callbacks, providers: [fake], ...gate.config }
    verdict.expect(await signInThrough(new Browser(direct(config)), "fake"))
    expect(gate.state.asked).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
    expect(await adapter.getUserByAccount!({ provider: "fake", providerAccountId: "user-1" })).toBeNull()
  })

  it("passkey sign-up: the callback's answer, the gate never asked, no user", async () => {
    const gate = refusingGate()
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, rateLimit: false, experimental: { enableWebAuthn: true }, providers: [Passkey], logger: quiet, callbacks, ...gate.config }
    const b = new PasskeyBrowser(direct(config), ORIGIN)
    const response = await b.register(new SoftCredential(ORIGIN, "localhost"), { email: "pat@example.com" })
    if (verdict.name === "refuses") expect(answerOf(response).error).toBe("AccessDenied")
    else verdict.expect(response)
    expect(gate.state.asked).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
  })

  it("an extension's req.signIn: the callback's answer, the gate never asked, no user", async () => {
    const gate = refusingGate()
    const adapter = MemoryAdapter()
    const outcomes: ExtensionSignInOutcome[] = []
    const config = credentialsConfig({ adapter, rateLimit: false, logger: quiet, callbacks, ...gate.config, extensions: [ssoExtension(outcomes), ...gate.config.extensions] })
    const response = await new Browser(direct(config)).request("/auth/sso/acs", { json: identity(), headers: { origin: "https://idp.example" } })
    if (verdict.name === "refuses") {
      expect(answerOf(response).error).toBe("AccessDenied")
      expect(outcomes[0]).toMatchObject({ refused: "AccessDenied", userId: null })
    } else verdict.expect(response)
    expect(gate.state.asked).toEqual([])
    expect(await allUsers(adapter)).toEqual([])
  })
})
