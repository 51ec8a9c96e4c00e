/**
 * Issue 28, item 1 (Medium): pre-hijack through the sign-up verification link. Mallory
 * signs up with Victoria's address and a password of his own. The verification link goes
 * to her mailbox; her mail scanner fetches it, or she opens it. Before the fix the GET
 * verified *his* account: his password signed in, his session lived on, and her later
 * magic-link sign-in landed in the account he controls.
 *
 * Now the link's GET only shows a confirm page, and confirming from any browser but the
 * one that signed up (the registrant cookie, `lib/password-flows/registrant.ts`) is a first
 * verification under T67: the unverified user is replaced, password and sessions with it.
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
function app(strategy: "jwt" | "database", emailVerification: "required" | "optional", adapter: Adapter = MemoryAdapter()) {
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

  // 3. Victoria opens the link in her own browser and confirms.
  const victoria = browser()
  const confirmed = await confirmVerification(victoria, link)
  expect(confirmed.path).toBe("/auth/password/verified")
  expect(confirmed.search?.get("password")).toBe("none")
  expect(await (await victoria.request(confirmed.location!)).text()).toContain("its password was not kept")

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

describe("what still works: the registrant's own confirmation", () => {
  it.each(["jwt", "database"] as const)("confirmed in the browser that signed up (%s sessions), the user and its password are kept — after a scanner's GETs too", async (strategy) => {
    const { adapter, browser } = app(strategy, "required")
    const ada = browser()
    await postStep(ada, "signup", { email: "ada@example.com", password: STRONG })
    const made = (await adapter.getUserByEmail!("ada@example.com"))!
    const link = smtp.linkFor("ada@example.com")
    await browser().request(link)
    const confirmed = await confirmVerification(ada, link)
    expect(confirmed.path).toBe("/auth/password/verified")
    expect(confirmed.search?.get("password")).toBeNull()
    expect(await adapter.getUserByEmail!("ada@example.com")).toMatchObject({ id: made.id, emailVerified: expect.any(Date) })
    expect((await passwordSignIn(ada, { email: "ada@example.com", password: STRONG })).error).toBeNull()
    // The registrant cookie is spent with the link.
    expect([...ada.jar.keys()]).not.toContain("portcullis.password-signup")
  })
})

describe("attacks on the confirmation itself", () => {
  it("the confirm POST without the page's CSRF token is refused and uses nothing", async () => {
    const { adapter, browser } = app("jwt", "required")
    const ada = browser()
    await postStep(ada, "signup", { email: "csrf@example.com", password: STRONG })
    const link = new URL(smtp.linkFor("csrf@example.com"))
    const forged = await browser().request("/auth/password/verify", {
      form: { token: link.searchParams.get("token")!, email: "csrf@example.com" },
      headers: { origin: "https://evil.example" },
    })
    expect(new URL(forged.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF")
    expect((await adapter.getUserByEmail!("csrf@example.com"))?.emailVerified).toBeNull()
    expect((await confirmVerification(ada, link.href)).path).toBe("/auth/password/verified")
  })

  it("Mallory's registrant cookie, carried to another sign-up's link, keeps nothing: the cookie is bound to one user and one link", async () => {
    const { adapter, browser } = app("jwt", "required")
    const mallory = browser()
    // His own sign-up gives his browser a registrant cookie...
    await postStep(mallory, "signup", { email: "mallory@example.com", password: STRONG })
    const cookie = mallory.jar.get("portcullis.password-signup")!.value
    // ...and the victim's address is signed up in another browser of his.
    const second = browser()
    await postStep(second, "signup", { email: VICTIM, password: MALLORYS_PASSWORD })
    const planted = (await adapter.getUserByEmail!(VICTIM))!
    // Victoria's browser somehow carries his first cookie (say, planted from a sibling subdomain).
    const victoria = browser()
    victoria.jar.set("portcullis.password-signup", { value: cookie, attributes: {} })
    await confirmVerification(victoria, smtp.linkFor(VICTIM))
    expect((await adapter.getUserByEmail!(VICTIM))?.id).not.toBe(planted.id)
    expect(await passwordOf(adapter, VICTIM)).toBeNull()
  })

  it("on https the registrant cookie is __Host- (Secure, Path=/, no Domain): a sibling subdomain cannot plant one", async () => {
    const mail = mailQueue()
    const auth = createAuth({
      secret: SECRET,
      trustHost: false,
      trustedOrigins: ["https://app.example"],
      adapter: MemoryAdapter(),
      providers: [Password({ hashing: LIGHT, waitUntil: mail.waitUntil, mailer: Nodemailer({ server: smtp.url, from: "auth@example.com" }) })],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
    })
    const b = new Browser(mail.settling((request) => auth.handle(request, { clientAddress: "198.51.100.99" })), "https://app.example")
    const result = await postStep(b, "signup", { email: "secure@example.com", password: STRONG })
    const cookie = result.response.headers.getSetCookie().find((c) => c.includes("portcullis.password-signup="))!
    expect(cookie).toMatch(/^__Host-portcullis\.password-signup=/)
    expect(cookie).toMatch(/; Path=\/;/)
    expect(cookie).toMatch(/; Secure/)
    expect(cookie).not.toMatch(/Domain=/i)
    expect(cookie).toMatch(/HttpOnly/)
  })

  it("a sign-up of a known address sets the same cookie (name, size, lifetime) as a new one: the answer tells nothing", async () => {
    const { adapter, browser } = app("jwt", "required")
    await adapter.createUser!({ id: crypto.randomUUID(), email: "known@example.com", emailVerified: new Date(), name: null, image: null })
    const known = await postStep(browser(), "signup", { email: "known@example.com", password: STRONG })
    const fresh = await postStep(browser(), "signup", { email: "new@example.com", password: STRONG })
    const shape = (r: Response) => r.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, (v) => `=<${v.length}>`).replace(/Expires=[^;]*/, "Expires=…"))
    expect(shape(known.response)).toEqual(shape(fresh.response))
    expect(shape(fresh.response).some((c) => c.startsWith("portcullis.password-signup="))).toBe(true)
  })
})
