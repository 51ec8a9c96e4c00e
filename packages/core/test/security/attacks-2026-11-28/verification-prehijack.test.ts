/**
 * Issue 28, item 1 (Medium): pre-hijack through the sign-up verification link. Mallory
 * signs up with Victoria's address and a password of his own. The verification link goes
 * to her mailbox; her mail scanner fetches it, or she opens it. Before the fix the GET
 * verified *his* account: his password signed in, his session lived on, and her later
 * magic-link sign-in landed in the account he controls.
 *
 * Now the link's GET only shows a confirm page, and its POST keeps the user and its password
 * only when the password chosen at sign-up is typed on that page — from any browser. Without
 * it (empty or wrong) the confirmation is a first verification under T67: the unverified
 * user is replaced, password and sessions with it. The browser proves nothing: on a shared
 * computer the one that signed up is also the owner's (shared-browser-verification.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, SECRET } from "../../helpers.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, LIGHT, mailQueue, passwordSignIn, postStep, STRONG } from "../../password/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const VICTIM = "victoria@example.com"
const MALLORYS_PASSWORD = "mallory's own long passphrase"
const HERS = "victoria chooses her own passphrase"

/** Magic links and passwords on one store, the way an app offering both is set up. */
function app(strategy: "jwt" | "database", emailVerification: "required" | "optional", adapter: Adapter = MemoryAdapter(), extra: Partial<AuthConfig> = {}) {
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    session: strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy },
    providers: [
      Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" }),
      Password({ hashing: LIGHT, emailVerification, waitUntil: mail.waitUntil }),
    ],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...extra,
  }
  const auth = createAuth(config)
  let n = 0
  // Every browser its own client address, so the per-address limits stay out of the way.
  const browser = () => new Browser(mail.settling((request) => auth.handle(request, { clientAddress: `198.51.100.${++n}` })), "http://localhost:3000")
  return { adapter, browser }
}

async function passwordOf(adapter: Adapter, email: string): Promise<string | null> {
  const user = await adapter.getUserByEmail!(email)
  return user ? adapter.getUserPassword!(user.id) : null
}

describe.each([
  ["memory", "jwt", "required"],
  ["memory", "jwt", "optional"],
  ["memory", "database", "required"],
  ["memory", "database", "optional"],
  ["SQLite", "database", "optional"],
] as const)("Mallory signs up with Victoria's address (%s store, %s sessions, emailVerification %s)", (store, strategy, emailVerification) => {
  it("her scanner's GETs verify nothing; her confirming replaces his user: his password and sessions are dead, her sign-ins are a fresh account", async () => {
    const db = store === "SQLite" ? await openTestDatabase("sqlite") : undefined
    const { adapter, browser } = app(strategy, emailVerification, db?.adapter)
    try {
      await attack(adapter, browser, emailVerification)
    } finally {
      await db?.close()
    }
  })
})

/** The attack's steps, on any store. */
async function attack(adapter: Adapter, browser: () => Browser, emailVerification: "required" | "optional") {
  const mallory = browser()

  // 1. Mallory signs up with her address and his password.
  expect((await postStep(mallory, "signup", { email: VICTIM, password: MALLORYS_PASSWORD })).path).toBe("/auth/password/sent")
  const planted = (await adapter.getUserByEmail!(VICTIM))!
  expect(planted.emailVerified).toBeNull()
  // With "optional" he is signed in at once, and means to stay.
  if (emailVerification === "optional") {
    expect((await passwordSignIn(mallory, { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBeNull()
    expect((await mallory.session())?.user?.email).toBe(VICTIM)
  }

  // 2. The link reaches her mailbox; the provider's scanner fetches it, twice.
  const link = smtp.linkFor(VICTIM)
  for (let i = 0; i < 2; i++) {
    const scanned = await browser().request(link)
    expect(scanned.status).toBe(200)
    expect(await scanned.text()).toContain("Confirm your email address")
  }
  expect((await adapter.getUserByEmail!(VICTIM))?.emailVerified).toBeNull()
  if (emailVerification === "required") expect((await passwordSignIn(browser(), { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBe("CredentialsSignin")

  // 3. Victoria opens the link in her own browser and confirms, the password field left
  //    empty: she did not sign up, and does not know his password.
  const victoria = browser()
  const confirmed = await confirmVerification(victoria, link)
  expect(confirmed.html).toContain('name="password" type="password"')
  expect(confirmed.path).toBe("/auth/password/verified")
  expect(confirmed.search?.get("password")).toBe("none")
  expect(await (await victoria.request(confirmed.location!)).text()).toContain("so it was not kept")

  // 4. Nothing Mallory made survives: not his user, not his password, not his session.
  const fresh = (await adapter.getUserByEmail!(VICTIM))!
  expect(fresh.id).not.toBe(planted.id)
  expect(fresh.emailVerified).toBeInstanceOf(Date)
  expect(await adapter.getUser!(planted.id)).toBeNull()
  expect(await passwordOf(adapter, VICTIM)).toBeNull()
  expect((await passwordSignIn(browser(), { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBe("CredentialsSignin")
  expect(await mallory.session()).toBeNull()

  // 5. Her magic-link sign-in lands in the fresh account.
  const viaLink = browser()
  await requestLink(viaLink, VICTIM)
  await openLink(viaLink, smtp.linkFor(VICTIM))
  expect((await viaLink.session())?.user?.email).toBe(VICTIM)
  expect((await adapter.getUserByEmail!(VICTIM))?.id).toBe(fresh.id)

  // 6. She chooses a password through "forgot password"; it is hers alone.
  await postStep(victoria, "forgot", { email: VICTIM })
  const reset = new URL(smtp.linkFor(VICTIM))
  expect(reset.pathname).toBe("/auth/password/reset")
  expect((await postStep(victoria, "reset", { token: reset.searchParams.get("token")!, email: VICTIM, password: HERS })).path).toBe("/auth/password/done")
  expect((await passwordSignIn(browser(), { email: VICTIM, password: HERS })).error).toBeNull()
  expect((await passwordSignIn(browser(), { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBe("CredentialsSignin")
  expect((await adapter.getUserByEmail!(VICTIM))?.id).toBe(fresh.id)
}

describe("what still works: the registrant keeps the password by typing it", () => {
  it.each(["jwt", "database"] as const)("confirmed in the browser that signed up with the password typed (%s sessions), the user and its password are kept — after a scanner's GETs too", async (strategy) => {
    const { adapter, browser } = app(strategy, "required")
    const ada = browser()
    await postStep(ada, "signup", { email: "ada@example.com", password: STRONG })
    const made = (await adapter.getUserByEmail!("ada@example.com"))!
    const link = smtp.linkFor("ada@example.com")
    await browser().request(link)
    const confirmed = await confirmVerification(ada, link, STRONG)
    expect(confirmed.path).toBe("/auth/password/verified")
    expect(confirmed.search?.get("password")).toBeNull()
    expect(await adapter.getUserByEmail!("ada@example.com")).toMatchObject({ id: made.id, emailVerified: expect.any(Date) })
    expect((await passwordSignIn(ada, { email: "ada@example.com", password: STRONG })).error).toBeNull()
  })

  it("confirmed on another device (she signed up on her laptop, reads her mail on her phone) with the password typed, the user and its password are kept", async () => {
    const { adapter, browser } = app("jwt", "required")
    await postStep(browser(), "signup", { email: "ada@example.com", password: STRONG })
    const made = (await adapter.getUserByEmail!("ada@example.com"))!
    const phone = browser()
    const confirmed = await confirmVerification(phone, smtp.linkFor("ada@example.com"), STRONG)
    expect(confirmed.search?.get("password")).toBeNull()
    expect(await adapter.getUserByEmail!("ada@example.com")).toMatchObject({ id: made.id, emailVerified: expect.any(Date) })
    expect((await passwordSignIn(phone, { email: "ada@example.com", password: STRONG })).error).toBeNull()
  })
})

describe("a confirmation without the sign-up's password is a first verification (T67)", () => {
  it.each(["jwt", "database"] as const)("in the very browser that signed up, the field left empty (%s sessions): the user is replaced, its password dead and the sessions it signed in revoked", async (strategy) => {
    const { adapter, browser } = app(strategy, "optional")
    // Mallory signs up with her address on the computer they share; "optional" signs him in.
    const shared = browser()
    await postStep(shared, "signup", { email: VICTIM, password: MALLORYS_PASSWORD })
    const planted = (await adapter.getUserByEmail!(VICTIM))!
    const phone = browser()
    expect((await passwordSignIn(phone, { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBeNull()
    // Victoria confirms there, as she would anywhere: she knows no password to type.
    const confirmed = await confirmVerification(shared, smtp.linkFor(VICTIM))
    expect(confirmed.search?.get("password")).toBe("none")
    expect(await adapter.getUser!(planted.id)).toBeNull()
    expect(await passwordOf(adapter, VICTIM)).toBeNull()
    expect(await phone.session()).toBeNull()
    expect((await passwordSignIn(browser(), { email: VICTIM, password: MALLORYS_PASSWORD })).error).toBe("CredentialsSignin")
  })

  it("a wrong password is a confirmation without one: the user is replaced, and whoever typed it keeps nothing", async () => {
    const { adapter, browser } = app("jwt", "required")
    await postStep(browser(), "signup", { email: VICTIM, password: MALLORYS_PASSWORD })
    const planted = (await adapter.getUserByEmail!(VICTIM))!
    const confirmed = await confirmVerification(browser(), smtp.linkFor(VICTIM), "a guess at his passphrase")
    expect(confirmed.search?.get("password")).toBe("none")
    expect((await adapter.getUserByEmail!(VICTIM))?.id).not.toBe(planted.id)
    expect(await passwordOf(adapter, VICTIM)).toBeNull()
  })

  it("a typed password counts on the sign-in lockout: one link takes one guess, and a locked address is refused before the link is used", async () => {
    const { adapter, browser } = app("jwt", "required", MemoryAdapter(), { rateLimit: {} })
    const ada = browser()
    await postStep(ada, "signup", { email: "ada@example.com", password: STRONG })
    const link = smtp.linkFor("ada@example.com")
    // Five wrong sign-ins (from anywhere) lock the address...
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(browser(), { email: "ada@example.com", password: `wrong ${i}` })).error).toBe("CredentialsSignin")
    // ...and a confirmation with a password is one more attempt: refused, the link unused.
    const refused = await confirmVerification(ada, link, STRONG)
    expect(refused.error).toBe("RateLimited")
    expect((await adapter.getUserByEmail!("ada@example.com"))?.emailVerified).toBeNull()
    expect(await passwordOf(adapter, "ada@example.com")).not.toBeNull()
  })

  it("a wrong password typed on the confirm page is one of the five sign-in guesses", async () => {
    const { browser } = app("jwt", "required", MemoryAdapter(), { rateLimit: {} })
    await postStep(browser(), "signup", { email: VICTIM, password: MALLORYS_PASSWORD })
    await confirmVerification(browser(), smtp.linkFor(VICTIM), "a guess")
    for (let i = 0; i < 4; i++) expect((await passwordSignIn(browser(), { email: VICTIM, password: `guess ${i}` })).error).toBe("CredentialsSignin")
    expect((await passwordSignIn(browser(), { email: VICTIM, password: "guess 5" })).error).toBe("RateLimited")
  })
})

describe("attacks on the confirmation itself", () => {
  it("the confirm POST without the page's CSRF token is refused and uses nothing", async () => {
    const { adapter, browser } = app("jwt", "required")
    const ada = browser()
    await postStep(ada, "signup", { email: "csrf@example.com", password: STRONG })
    const link = new URL(smtp.linkFor("csrf@example.com"))
    const forged = await browser().request("/auth/password/verify", {
      form: { token: link.searchParams.get("token")!, email: "csrf@example.com", password: STRONG },
      headers: { origin: "https://evil.example" },
    })
    expect(new URL(forged.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect((await adapter.getUserByEmail!("csrf@example.com"))?.emailVerified).toBeNull()
    expect((await confirmVerification(ada, link.href, STRONG)).path).toBe("/auth/password/verified")
    expect(await passwordOf(adapter, "csrf@example.com")).not.toBeNull()
  })

  it("a sign-up of a known address sets the same cookies as a new one (none marks the registrant any more): the answer tells nothing", async () => {
    const { adapter, browser } = app("jwt", "required")
    await adapter.createUser!({ id: crypto.randomUUID(), email: "known@example.com", emailVerified: new Date(), name: null, image: null })
    const known = await postStep(browser(), "signup", { email: "known@example.com", password: STRONG })
    const fresh = await postStep(browser(), "signup", { email: "new@example.com", password: STRONG })
    const shape = (r: Response) => r.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, (v) => `=<${v.length}>`).replace(/Expires=[^;]*/, "Expires=…"))
    expect(shape(known.response)).toEqual(shape(fresh.response))
  })
})
