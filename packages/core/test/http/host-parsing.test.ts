import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import { InvalidRequest } from "@portcullis/core/errors"
import { checkHost, checkProto, originFromHeaders } from "@portcullis/core/integration"
import { credentialsConfig } from "../helpers.js"

/**
 * `lib/http/host.ts` at its edges: the longest name and label it accepts, what each refusal
 * says (the 400's message is all a client or an operator reading the log gets), and that a
 * hostile value is quoted short and escaped in that message. The attack cases are in
 * `../security/hosts.test.ts`.
 */
const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequest)
    return (error as Error).message
  }
  throw new Error("accepted")
}

describe("the longest host: 253 characters, labels of 63", () => {
  const name253 = `${"a.".repeat(123)}example`
  const label63 = `${"b".repeat(63)}.example`

  it("a name of exactly 253 characters and a label of exactly 63 are accepted", () => {
    expect(name253).toHaveLength(253)
    expect(checkHost(name253)).toBe(name253)
    expect(checkHost(label63)).toBe(label63)
    expect(checkHost(`${name253.slice(0, -1)}e:8080`)).toBe(`${name253.slice(0, -1)}e:8080`)
  })

  it("one character more is refused", () => {
    expect(refusal(() => checkHost(`a${name253}`))).toMatch(/is not a bare host name or address/)
    expect(refusal(() => checkHost(`b${label63}`))).toMatch(/is not a bare host name or address/)
  })
})

describe("each refusal says what is wrong", () => {
  it.each([
    ["a@evil.example", 'The host "a@evil.example" is not a bare host name or address'],
    ["[::1", 'The host "[::1" is not a bare host name or address'],
    ["x[::1]", 'The host "x[::1]" is not a bare host name or address'],
    ["[::1]x", 'The host "[::1]x" is not a bare host name or address'],
    ["[::1]:", 'The port of the host "[::1]:" is not between 1 and 65535'],
    // A second colon outside brackets stays in the host name (no port is read from the middle).
    ["example.com:80:80", 'The host "example.com:80:80" is not a bare host name or address'],
    ["x:0", 'The port of the host "x:0" is not between 1 and 65535'],
    ["x:65536", 'The port of the host "x:65536" is not between 1 and 65535'],
    ["x:-1", 'The port of the host "x:-1" is not between 1 and 65535'],
    ["999.1.1.1", 'The host "999.1.1.1" is not a valid address'],
    ["[1::2::3]:80", 'The host "[1::2::3]:80" is not a valid address'],
  ])("%j: %s", (value, message) => {
    expect(refusal(() => checkHost(value))).toBe(message)
  })

  it.each(["javascript", "ht:tp", "http:x", ":http"])("the protocol %j is neither http nor https", (value) => {
    expect(refusal(() => checkProto(value))).toBe(`The protocol ${JSON.stringify(value)} is neither http nor https`)
  })

  it.each([null, undefined, ""])("a Host of %j is a missing Host", (host) => {
    expect(refusal(() => originFromHeaders({ host, protocol: "https", trustForwarded: false }))).toBe("The request has no Host header")
  })

  it("a port with leading zeros is read as its number", () => {
    expect(checkHost("app.example:08080")).toBe("app.example:8080")
    expect(checkHost("[::1]:00443")).toBe("[::1]:443")
  })
})

describe("a hostile Host is quoted short and escaped in the message", () => {
  it("only its first 100 characters are quoted, then an ellipsis", () => {
    const long = `${"x".repeat(150)}/`
    expect(refusal(() => checkHost(long))).toBe(`The host "${"x".repeat(100)}…" is not a bare host name or address`)
    const exactly = `${"y".repeat(99)}/`
    expect(refusal(() => checkHost(exactly))).toBe(`The host "${exactly}" is not a bare host name or address`)
  })

  it("control characters are escaped, so a forged header cannot forge a log line", async () => {
    expect(refusal(() => checkHost("evil\r\nx"))).toBe('The host "evil\\r\\nx" is not a bare host name or address')
    const response = await Auth(new Request("http://localhost:3000/auth/csrf", { headers: { "x-forwarded-host": `evil/${"z".repeat(200)}` } }), credentialsConfig())
    expect(response.status).toBe(400)
    const { message } = (await response.json()) as { message: string }
    expect(message.length).toBeLessThan(200)
    expect(message).toContain("…")
  })
})
