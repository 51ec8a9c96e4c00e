/**
 * Attack on the email sign-in limit per recipient (docs/rate-limiting.md: "5 emails / h to
 * one address"): the limit protects a mailbox (and the app's sender reputation) from being
 * flooded by requests from many client addresses. `victim+1@`, `victim+2@`, … are
 * distinct addresses to the email provider (plus-tags are kept, they may be distinct
 * accounts) but one mailbox: each was a fresh counter, so a botnet could send the victim
 * unlimited sign-in emails.
 */
import { describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"

function app() {
  const sent: string[] = []
  const email = {
    id: "email",
    type: "email",
    name: "Email",
    from: "auth@example.com",
    maxAge: 600,
    async sendVerificationRequest({ identifier }: { identifier: string }) {
      sent.push(identifier)
    },
  } as unknown as EmailConfig
  const auth = createAuth({
    secret: SECRET,
    trustHost: true,
    trustedOrigins: ["http://localhost:3000"],
    adapter: MemoryAdapter(),
    providers: [email],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    rateLimit: {},
  })
  // Every request from another client address, as a botnet's would be.
  let n = 0
  const browser = () => new Browser((request) => auth.handle(request, { clientAddress: `203.0.113.${++n}` }), "http://localhost:3000")
  return { sent, browser }
}

async function requestLink(b: Browser, address: string) {
  const response = await b.request("/auth/signin/email", { form: { email: address, csrfToken: await b.csrfToken() } })
  const location = response.headers.get("location")
  return location ? new URL(location).searchParams.get("error") : null
}

describe("one mailbox, many plus-tags", () => {
  it("the sixth link within the hour to victim+N@example.com is refused, whatever the tag", async () => {
    const { sent, browser } = app()
    const results = []
    for (let i = 1; i <= 8; i++) results.push(await requestLink(browser(), `victim+${i}@example.com`))
    expect(results).toEqual([null, null, null, null, null, "RateLimited", "RateLimited", "RateLimited"])
    expect(sent).toHaveLength(5)
  })

  it("tagged and untagged share the count, and the links still go to the address as typed", async () => {
    const { sent, browser } = app()
    for (const address of ["victim@example.com", "victim+a@example.com", "Victim+B@Example.com", "victim+@example.com", "victim+c+d@example.com"]) {
      expect(await requestLink(browser(), address)).toBeNull()
    }
    expect(await requestLink(browser(), "victim+z@example.com")).toBe("RateLimited")
    expect(sent).toEqual(["victim@example.com", "victim+a@example.com", "victim+b@example.com", "victim+@example.com", "victim+c+d@example.com"])
  })

  it("what held: another mailbox at the same domain is not affected", async () => {
    const { browser } = app()
    for (let i = 1; i <= 6; i++) await requestLink(browser(), `victim+${i}@example.com`)
    expect(await requestLink(browser(), "other@example.com")).toBeNull()
    expect(await requestLink(browser(), "victimx@example.com")).toBeNull()
  })
})
