import { describe, expect, it } from "vitest"
import { Auth, createActionURL } from "@portcullis/core"
import { InvalidRequest } from "@portcullis/core/errors"
import { checkHost, checkProto, invalidRequestResponse, originFromHeaders, originOfUrl } from "@portcullis/core/integration"
import { captureLogger, credentialsConfig } from "../helpers.js"

/**
 * T32: the site origin is built only from a well-formed host and an http(s) scheme. The
 * check lives in `lib/http/host.ts`; core uses it for the request's own host and for
 * forwarded headers, and integrations use it (through `@portcullis/core/integration`)
 * before they build any URL. The integrations' own tests are in their packages
 * (`packages/<name>/test/hosts.test.ts`).
 */

describe("checkHost: a Host is a bare name or address with an optional port", () => {
  it.each([
    ["example.com", "example.com"],
    ["EXAMPLE.com", "example.com"],
    ["example.com.", "example.com."],
    ["localhost:3000", "localhost:3000"],
    ["app.example:443", "app.example:443"],
    ["127.0.0.1", "127.0.0.1"],
    ["127.0.0.1:1", "127.0.0.1:1"],
    ["10.0.0.1:65535", "10.0.0.1:65535"],
    ["[::1]", "[::1]"],
    ["[::1]:3000", "[::1]:3000"],
    ["[2001:DB8::1]:8080", "[2001:db8::1]:8080"],
    ["my_service:8080", "my_service:8080"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
  ])("accepts %j as %j", (value, host) => {
    expect(checkHost(value)).toBe(host)
  })

  it.each([
    ["userinfo", "a@evil.example"],
    ["userinfo with password", "user:pass@evil.example"],
    ["a path", "evil.example/x"],
    ["a backslash path", "evil.example\\x"],
    ["a query", "evil.example?x"],
    ["a fragment", "evil.example#x"],
    ["a port above 65535", "x:99999"],
    ["port 0", "x:0"],
    ["an empty port", "x:"],
    ["a six-digit port", "x:000080"],
    ["a non-numeric port", "x:http"],
    ["two colons", "x:1:2"],
    ["an unbracketed IPv6 address", "::1"],
    ["a malformed IPv6 address", "[::g]"],
    ["an IPv6 zone id", "[fe80::1%25eth0]"],
    ["an IPv6 address with junk after the bracket", "[::1]x"],
    ["an invalid IPv4 address", "999.1.1.1"],
    ["a name ending in a number", "evil.1"],
    ["a space", "evil example"],
    ["a tab", "evil\texample"],
    ["CR LF", "evil.example\r\nSet-Cookie: x=1"],
    ["a NUL", "evil\u0000.example"],
    ["non-ASCII", "bücher.example"],
    ["an empty label", "evil..example"],
    ["the empty string", ""],
    ["a label over 63 characters", `${"a".repeat(64)}.example`],
    ["a name over 253 characters", `${"a.".repeat(127)}example`],
    ["a scheme", "http://evil.example"],
  ])("refuses %s (%j) with InvalidRequest", (_, value) => {
    expect(() => checkHost(value)).toThrow(InvalidRequest)
  })
})

describe("checkProto: the scheme is http or https", () => {
  it.each([
    ["http", "http"],
    ["https", "https"],
    ["HTTPS", "https"],
    ["https:", "https"],
    [" http ", "http"],
  ])("accepts %j as %j", (value, proto) => {
    expect(checkProto(value)).toBe(proto)
  })

  it.each(["javascript", "javascript:", "ftp", "ws", "file", "", "https, http", "http/1.1", "null"])("refuses %j", (value) => {
    expect(() => checkProto(value)).toThrow(InvalidRequest)
  })
})

describe("originFromHeaders: forwarded headers count only when trusted, and are checked then", () => {
  const base = { host: "internal:3000", protocol: "http" }

  it("builds the origin from Host and the connection's protocol", () => {
    expect(originFromHeaders({ ...base, trustForwarded: false })).toBe("http://internal:3000")
    expect(originFromHeaders({ host: "app.example:443", protocol: "https:", trustForwarded: false })).toBe("https://app.example")
  })

  it("takes the first value of each trusted forwarded list", () => {
    const origin = originFromHeaders({ ...base, forwardedHost: "app.example, internal", forwardedProto: "https, http", trustForwarded: true })
    expect(origin).toBe("https://app.example")
  })

  it("ignores untrusted forwarded headers entirely, hostile or not", () => {
    expect(originFromHeaders({ ...base, forwardedHost: "a@evil.example", forwardedProto: "javascript", trustForwarded: false })).toBe("http://internal:3000")
  })

  it("treats an empty forwarded value as absent", () => {
    expect(originFromHeaders({ ...base, forwardedHost: " ", forwardedProto: ", https", trustForwarded: true })).toBe("http://internal:3000")
  })

  it.each([
    ["X-Forwarded-Host with a path", { forwardedHost: "evil.example/x" }],
    ["X-Forwarded-Host with userinfo", { forwardedHost: "a@evil.example" }],
    ["X-Forwarded-Host with a bad port", { forwardedHost: "evil.example:99999" }],
    ["X-Forwarded-Proto javascript", { forwardedProto: "javascript" }],
    ["X-Forwarded-Proto ftp first", { forwardedProto: "ftp, https" }],
  ])("refuses a trusted %s", (_, forwarded) => {
    expect(() => originFromHeaders({ ...base, ...forwarded, trustForwarded: true })).toThrow(InvalidRequest)
  })

  it("refuses a missing Host, and a malformed one even without forwarded headers", () => {
    expect(() => originFromHeaders({ host: undefined, protocol: "http", trustForwarded: false })).toThrow(InvalidRequest)
    expect(() => originFromHeaders({ host: "a@evil.example", protocol: "http", trustForwarded: false })).toThrow(InvalidRequest)
    expect(() => originFromHeaders({ host: "app.example", protocol: "javascript:", trustForwarded: false })).toThrow(InvalidRequest)
  })
})

describe("originOfUrl: a URL a framework built is checked like headers", () => {
  it("accepts http(s) URLs and returns their origin", () => {
    expect(originOfUrl("https://app.example/x?y")).toBe("https://app.example")
    expect(originOfUrl(new URL("http://[::1]:3000/"))).toBe("http://[::1]:3000")
  })

  it.each(["javascript://app.example/x", "ftp://app.example/", "http://a@app.example/", "http://x:0/", "not a url"])("refuses %j", (url) => {
    expect(() => originOfUrl(url)).toThrow(InvalidRequest)
  })
})

describe("Auth() checks the request's own host, not only forwarded ones", () => {
  const { lines, logger } = captureLogger()
  const config = credentialsConfig({ logger })

  async function expect400(response: Response) {
    expect(response.status).toBe(400)
    const text = await response.text()
    expect(JSON.parse(text)).toMatchObject({ error: "InvalidRequest" })
    expect(text).not.toContain("null/")
    expect(text).not.toMatch(/\bat .+:\d+:\d+\)?/)
    expect(response.headers.get("location")).toBeNull()
  }

  it.each(["javascript://app.example/auth/providers", "ftp://app.example/auth/providers", "http://app.example:0/auth/providers"])("a request URL %s → 400, never a null origin", async (url) => {
    await expect400(await Auth(new Request(url), config))
    expect(lines.join("\n")).toContain("InvalidRequest")
  })

  it.each([
    ["x-forwarded-host", "evil.example/x"],
    ["x-forwarded-host", "a@evil.example"],
    ["x-forwarded-host", "x:99999"],
    ["x-forwarded-proto", "javascript"],
  ])("a trusted %s: %s → 400", async (name, value) => {
    await expect400(await Auth(new Request("http://localhost:3000/auth/providers", { headers: { [name]: value } }), config))
  })

  it("X-Forwarded-Proto `https, http` counts as https", async () => {
    const response = await Auth(new Request("http://localhost:3000/auth/providers", { headers: { "x-forwarded-proto": "https, http" } }), config)
    expect((await response.json()).credentials.signinUrl).toBe("https://localhost:3000/auth/signin/credentials")
  })

  it("a host with an underscore (a container name) is served", async () => {
    const response = await Auth(new Request("http://my_app:3000/auth/providers"), config)
    expect((await response.json()).credentials.signinUrl).toBe("http://my_app:3000/auth/signin/credentials")
  })

  it("invalidRequestResponse is the same answer Auth() gives", async () => {
    const fromCore = await Auth(new Request("javascript://x/auth/csrf"), config)
    const fromIntegration = invalidRequestResponse(new InvalidRequest("The protocol \"javascript:\" is neither http nor https"))
    expect(fromIntegration.status).toBe(fromCore.status)
    expect(Object.fromEntries(fromIntegration.headers)).toEqual(Object.fromEntries(fromCore.headers))
    expect(await fromIntegration.json()).toEqual(await fromCore.json())
  })
})

describe("createActionURL (integrations' server-side calls) refuses hostile headers", () => {
  const build = (headers: Record<string, string>) => () => createActionURL("session", "http", new Headers(headers), {}, { basePath: "/auth" })

  it.each([
    [{ host: "a@evil.example" }],
    [{ host: "x:99999" }],
    [{ host: "app.example", "x-forwarded-host": "evil.example/x" }],
    [{ host: "app.example", "x-forwarded-proto": "javascript" }],
    [{}],
  ])("%j → InvalidRequest", (headers) => {
    expect(build(headers)).toThrow(InvalidRequest)
  })

  it("builds from well-formed ones, first forwarded value first", () => {
    expect(build({ host: "internal", "x-forwarded-host": "app.example, internal", "x-forwarded-proto": "https, http" })().href).toBe("https://app.example/auth/session")
  })
})
