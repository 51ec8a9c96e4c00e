/**
 * Issue 28, "scanner-proof by default": mail security gateways, link previews and chat
 * unfurlers fetch every link in a message, often before its reader. A GET that consumed a
 * token let them sign in (magic link), verify an account for whoever registered it
 * (verification link) or burn the link. Now a GET of any emailed link — magic link with the
 * default options, sign-up verification, reset, the reset link in "you already have an
 * account" — shows a page and uses nothing; the token is used by the page's CSRF-checked POST.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, formFields, LIGHT, mailQueue, passwordSignIn, postStep, seedUser, STRONG } from "../../password/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

/** An app with the providers as an Auth.js user would list them: no scanner option set. */
function app() {
  const adapter = MemoryAdapter()
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" }), Password({ hashing: LIGHT, waitUntil: mail.waitUntil })],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  }
  const auth = createAuth(config)
  let n = 0
  const browser = () => new Browser(mail.settling((request) => auth.handle(request, { clientAddress: `192.0.2.${++n}` })), "http://localhost:3000")
  return { adapter, browser }
}

/** The scanner: three fresh clients fetch the link; each gets a page, none a session. */
async function scan(browser: () => Browser, link: string) {
  for (let i = 0; i < 3; i++) {
    const scanner = browser()
    const response = await scanner.request(link)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toContain("no-store")
    expect(await response.text()).toContain('<form method="post"')
    expect(await scanner.session()).toBeNull()
  }
}

describe("a scanner fetches every emailed link before its reader", () => {
  it("magic link (default options): the scanner is not signed in, and the reader still is, by the button", async () => {
    const { browser } = app()
    const ada = browser()
    await requestLink(ada, "ada@example.com")
    const link = smtp.linkFor("ada@example.com")
    await scan(browser, link)
    await openLink(ada, link)
    expect((await ada.session())?.user?.email).toBe("ada@example.com")
  })

  it("sign-up verification: the scanner verifies nothing, and the registrant still can", async () => {
    const { adapter, browser } = app()
    const ada = browser()
    await postStep(ada, "signup", { email: "new@example.com", password: STRONG })
    const link = smtp.linkFor("new@example.com")
    await scan(browser, link)
    expect((await adapter.getUserByEmail!("new@example.com"))?.emailVerified).toBeNull()
    expect((await confirmVerification(ada, link, STRONG)).path).toBe("/auth/password/verified")
    expect((await passwordSignIn(ada, { email: "new@example.com", password: STRONG })).error).toBeNull()
  })

  it.each([
    ["forgot-password", "forgot"],
    ["you already have an account", "signup"],
  ] as const)("reset link (%s): the scanner uses nothing, and the reader's form still resets", async (_, step) => {
    const { adapter, browser } = app()
    await seedUser(adapter, { email: "grace@example.com", password: "grace's old passphrase" })
    await postStep(browser(), step, { email: "grace@example.com", ...(step === "signup" && { password: STRONG }) })
    const link = new URL(smtp.linkFor("grace@example.com"))
    expect(link.pathname).toBe("/auth/password/reset")
    await scan(browser, link.href)
    const grace = browser()
    const fields = formFields(await (await grace.request(link.href)).text())
    const done = await grace.request("/auth/password/reset", { form: { ...fields, password: "grace's brand new passphrase" } })
    expect(new URL(done.headers.get("location")!).pathname).toBe("/auth/password/done")
  })
})
