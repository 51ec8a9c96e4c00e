import { describe, expect, it } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { getSession, InvalidRequest, SolidAuth, type SolidAuthConfig } from "@portcullis/solid-start"

/**
 * T32 for SolidStart. The server (h3/Nitro, or the example's Node entry) builds
 * `request.url` from the `Host` header and hands the request over with every forwarded
 * header. The handlers are core, which checks both; `getSession` checks the request URL's
 * origin with core's rule before building its own URL, and throws a typed `InvalidRequest`.
 */

const config: SolidAuthConfig = {
  secret: "solid-start-unit-test-secret-0123456789abcdef",
  trustHost: true,
  // Core logs every refusal; these are the expected ones.
  logger: { error: () => {} },
  providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
}

/** Request URLs a server builds from a hostile `Host` or protocol that still parse. */
const hostileUrls = [
  ["a javascript: scheme", "javascript://app.example"],
  ["an ftp: scheme", "ftp://app.example"],
  ["port 0", "http://app.example:0"],
]

async function expectCore400(response: Response) {
  expect(response.status).toBe(400)
  const text = await response.text()
  expect(JSON.parse(text)).toMatchObject({ error: "InvalidRequest" })
  expect(text).not.toContain("null/")
}

describe("SolidStart: the handlers are core, which checks host and forwarded headers", () => {
  const { GET, POST } = SolidAuth(config)

  it.each(hostileUrls)("a request URL with %s → core's 400", async (_, origin) => {
    await expectCore400(await GET({ request: new Request(`${origin}/api/auth/providers`) }))
  })

  it.each([
    ["x-forwarded-host", "evil.example/x"],
    ["x-forwarded-host", "a@evil.example"],
    ["x-forwarded-host", "x:99999"],
    ["x-forwarded-proto", "javascript"],
  ])("a forged %s: %s → core's 400, on pages and posts alike", async (name, value) => {
    await expectCore400(await GET({ request: new Request("http://app.example/api/auth/signin", { headers: { [name]: value } }) }))
    await expectCore400(await POST({ request: new Request("http://app.example/api/auth/signout", { method: "POST", headers: { [name]: value } }) }))
  })

  it("X-Forwarded-Proto `https, http` counts by its first value", async () => {
    const response = await GET({ request: new Request("http://app.example/api/auth/providers", { headers: { "x-forwarded-proto": "https, http" } }) })
    expect((await response.json()).credentials.signinUrl).toBe("https://app.example/api/auth/signin/credentials")
  })
})

describe("SolidStart: getSession throws a typed InvalidRequest for a malformed origin", () => {
  it.each(hostileUrls)("a request URL with %s", async (_, origin) => {
    await expect(getSession(new Request(`${origin}/dashboard`), config)).rejects.toBeInstanceOf(InvalidRequest)
  })

  it("a well-formed one still reads the (absent) session", async () => {
    expect(await getSession(new Request("http://app.example:3000/dashboard"), config)).toBeNull()
  })
})
