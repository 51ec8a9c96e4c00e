/**
 * Attacks on email magic links (2026-11-27): one link opened 50 times at once over a real
 * socket, a link's address respelled, one address's token under another's, look-alike
 * addresses next to an existing user, repeated link parameters, and hostile callback
 * URLs written into a link. The mail goes through a real SMTP server (smtp-server), the
 * app answers through `Auth()`, in process or behind a node:http server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct } from "../../helpers.js"
import { httpServer, type TestServer } from "../../http-server.js"
import { recordWrites } from "../../oauth/flow.js"
import { emailConfig, extractLink, newBrowser, redirectOf, requestLink, startSmtp, type TestSmtp } from "../../email/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(async () => {
  await smtp.close()
})

const log = captureLogger()

function setup(extra: Partial<AuthConfig> = {}) {
  const memory = MemoryAdapter()
  const { adapter, writes } = recordWrites(memory)
  const config = emailConfig(adapter, smtp.url, { logger: log.logger, ...extra })
  return { memory, writes, config, browser: () => newBrowser(direct(config)) }
}

const sessionSet = (response: Response) => response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/Max-Age=0/i.test(c))

/** Asserts a refused link: the Verification error page, no session cookie. */
function expectVerification(response: Response) {
  const { path, error } = redirectOf(response)
  expect(path).toBe("/auth/error")
  expect(error).toBe("Verification")
  expect(sessionSet(response)).toBe(false)
}

/** A link with one query parameter replaced. */
function withParam(link: string, name: string, value: string): string {
  const url = new URL(link)
  url.searchParams.set(name, value)
  return url.href
}

describe("one link opened 50 times at once, over a real HTTP server", () => {
  let server: TestServer
  const memory = MemoryAdapter()
  const recorded = recordWrites(memory)
  beforeAll(async () => {
    server = await httpServer(emailConfig(recorded.adapter, smtp.url, { logger: log.logger }))
  })
  afterAll(async () => {
    await server.close()
  })

  it("exactly one opening gets a session; the other 49 get Verification", async () => {
    await requestLink(new Browser(server.transport, server.origin), "race-http@example.com")
    const link = smtp.linkFor("race-http@example.com")
    expect(link.startsWith(server.origin)).toBe(true)
    recorded.writes.length = 0
    const responses = await Promise.all(Array.from({ length: 50 }, () => new Browser(server.transport, server.origin).request(link)))
    const signedIn = responses.filter(sessionSet)
    expect(signedIn).toHaveLength(1)
    for (const response of responses) if (!sessionSet(response)) expectVerification(response)
    expect(recorded.writes.filter((w) => w === "createSession")).toHaveLength(1)
    expect(recorded.writes.filter((w) => w === "createUser")).toHaveLength(1)
  })
})

describe("a link's address respelled", () => {
  it.each([
    ["upper case", "Grace@Example.com"],
    ["a plus tag", "grace+x@example.com"],
    ["a trailing dot", "grace@example.com."],
    ["surrounding spaces", " grace@example.com "],
    ["a Cyrillic а", "grаce@example.com"],
    ["a fullwidth ｇ", "ｇrace@example.com"],
    ["a zero-width space", "gr\u200bace@example.com"],
    ["a second address", "grace@example.com,mallory@example.com"],
  ])("%s: refused, and the genuine link still works after", async (_what, spelling) => {
    const app = setup()
    await requestLink(app.browser(), "grace@example.com")
    const link = smtp.linkFor("grace@example.com")
    const attacker = app.browser()
    expectVerification(await attacker.request(withParam(link, "email", spelling)))
    expect(app.writes).toEqual([])
    const owner = app.browser()
    await owner.request(link)
    expect((await owner.session()).user.email).toBe("grace@example.com")
  })
})

describe("one address's token under another address", () => {
  it("Mallory's token with Grace's address, and Grace's with Mallory's, while both are pending: both refused, both links still work", async () => {
    const app = setup()
    await requestLink(app.browser(), "grace@example.com")
    await requestLink(app.browser(), "mallory@example.com")
    const grace = smtp.linkFor("grace@example.com")
    const mallory = smtp.linkFor("mallory@example.com")
    const malloryToken = new URL(mallory).searchParams.get("token")!
    const graceToken = new URL(grace).searchParams.get("token")!
    expectVerification(await app.browser().request(withParam(grace, "token", malloryToken)))
    expectVerification(await app.browser().request(withParam(mallory, "token", graceToken)))
    expect(app.writes).toEqual([])
    for (const [link, email] of [[grace, "grace@example.com"], [mallory, "mallory@example.com"]] as const) {
      const b = app.browser()
      await b.request(link)
      expect((await b.session()).user.email).toBe(email)
    }
  })

  it("a link from another deployment (another secret) does not open here, even for the same address", async () => {
    const here = setup()
    const there = emailConfig(here.memory, smtp.url, { logger: log.logger, secret: "another-deployment-secret-of-32-chars!" })
    await requestLink(newBrowser(direct(there)), "grace@example.com")
    const link = smtp.linkFor("grace@example.com")
    expectVerification(await here.browser().request(link))
  })
})

describe("repeated link parameters", () => {
  it.each([
    ["a second email naming the victim", "&email=victim%40example.com"],
    ["a second token", "&token=0000"],
    ["an email array", "&email[]=victim%40example.com"],
  ])("%s: no session as the victim", async (_what, suffix) => {
    const app = setup()
    const victimUser = await app.memory.createUser!({ id: "victim", email: "victim@example.com", emailVerified: new Date() })
    await requestLink(app.browser(), "mallory@example.com")
    const link = smtp.linkFor("mallory@example.com")
    const b = app.browser()
    const response = await b.request(link + suffix)
    const session = await b.session()
    // Whatever the parser keeps, the victim is never signed in.
    expect(session?.user?.email).not.toBe("victim@example.com")
    if (sessionSet(response)) expect(session.user.email).toBe("mallory@example.com")
    expect((await app.memory.getUser!(victimUser.id))?.email).toBe("victim@example.com")
  })
})

describe("look-alike addresses beside an existing user", () => {
  it.each([
    ["Cyrillic а in the local part", "аda@example.com"],
    ["Cyrillic а in the domain", "ada@exаmple.com"],
    ["fullwidth letters", "ａda@example.com"],
    ["a combining accent", "ada\u0301@example.com"],
    ["a dotted capital I", "İda@example.com"],
  ])("%s: mailed to the look-alike itself, and the link signs in another user than Ada", async (_what, lookalike) => {
    const app = setup()
    const ada = await app.memory.createUser!({ id: "user-ada", email: "ada@example.com", emailVerified: new Date() })
    const sent = await requestLink(app.browser(), lookalike)
    const { path } = redirectOf(sent)
    if (path === "/auth/verify-request") {
      const mail = smtp.messages.at(-1)!
      expect(mail.to).not.toContain("ada@example.com")
      const link = extractLink(mail.parsed.text ?? "")
      const b = app.browser()
      await b.request(link)
      const session = await b.session()
      expect(session.user.email).not.toBe("ada@example.com")
      const user = await app.memory.getUserByEmail!(session.user.email)
      expect(user!.id).not.toBe(ada.id)
    } else {
      // Refused outright: also safe.
      expect(redirectOf(sent).error).toBe("EmailSignin")
    }
    expect(await app.memory.getUser!(ada.id)).toMatchObject({ email: "ada@example.com" })
  })

  it("spellings that fold to Kate's address (case, the Kelvin sign, spaces) are mailed to Kate, never elsewhere", async () => {
    const app = setup()
    await app.memory.createUser!({ id: "user-kate", email: "kate@example.com", emailVerified: new Date() })
    for (const spelling of ["KATE@EXAMPLE.COM", "\u212Aate@example.com", " kate@example.com"]) {
      const before = smtp.messages.length
      await requestLink(app.browser(), spelling)
      expect(smtp.messages.length).toBe(before + 1)
      expect(smtp.messages.at(-1)!.to).toEqual(["kate@example.com"])
    }
  })
})

describe("callbackUrl written into a link", () => {
  it.each([
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "%2F%2Fevil.example",
    "javascript:alert(1)",
    "http://localhost:3000@evil.example",
    "http://localhost:3000.evil.example/",
  ])("%j: the link lands on the site", async (target) => {
    const app = setup()
    await requestLink(app.browser(), "cb@example.com", { callbackUrl: target })
    const link = smtp.linkFor("cb@example.com")
    expect(new URL(new URL(link).searchParams.get("callbackUrl")!).origin).toBe("http://localhost:3000")
    // And a link whose callbackUrl the attacker rewrote before handing it over.
    const rewritten = withParam(link, "callbackUrl", target)
    const b = app.browser()
    const response = await b.request(rewritten)
    expect(new URL(response.headers.get("location")!).origin).toBe("http://localhost:3000")
  })
})
