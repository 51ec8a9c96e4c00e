/**
 * The protected header checks of `readJweHeader`, at their edges: the header's length, the
 * kid's length, what a header must be (a JSON object in strict UTF-8), and the refusal code
 * each failure carries (session checks sort them into log kinds by that code).
 */
import { describe, expect, it } from "vitest"
import { readJweHeader, type HeaderMemo } from "../../src/lib/jwt/header.js"

const REST = "..AAAAAAAAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA"
const segmentOf = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")
const tokenWith = (header: unknown) => `${segmentOf(JSON.stringify(header))}${REST}`

/** A valid header whose segment is exactly `length` characters (a multiple of 4). */
function headerOfLength(length: number): string {
  const bytes = (length / 4) * 3
  const base = JSON.stringify({ alg: "dir", enc: "A256GCM", pad: "" })
  const json = base.replace('"pad":""', `"pad":"${"x".repeat(bytes - base.length)}"`)
  const segment = segmentOf(json)
  expect(segment).toHaveLength(length)
  return segment
}

function refusal(token: string, memo?: HeaderMemo): { code: string; message: string } | undefined {
  try {
    readJweHeader(token, memo)
    return undefined
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message }
  }
}

describe("the header segment's length", () => {
  it("reads a header of 2048 characters and refuses one of 2052 without parsing it", () => {
    expect(readJweHeader(`${headerOfLength(2048)}${REST}`)).toEqual({ enc: "A256GCM", kid: undefined })
    expect(refusal(`${headerOfLength(2052)}${REST}`)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token is not a compact JWE" })
  })

  it("refuses a token that starts with its first dot (an empty header) or has none", () => {
    expect(refusal(`.${REST}`)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token is not a compact JWE" })
    expect(refusal("no-dots-at-all")).toMatchObject({ code: "ERR_JWE_MALFORMED" })
    // A one-character header gets as far as parsing (and fails there).
    expect(refusal(`e${REST}`)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token header does not parse" })
  })

  it("counts exactly four dots: three or five are refused as not five segments", () => {
    const good = tokenWith({ alg: "dir", enc: "A256GCM" })
    expect(readJweHeader(good).enc).toBe("A256GCM")
    for (const token of [good.slice(0, good.lastIndexOf(".")), `${good}.`, `${good}.x.y`]) {
      expect(refusal(token)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token is not a compact JWE (five segments)" })
    }
  })
})

describe("the kid", () => {
  it("is optional, and compared when it is a non-empty string of at most 256 characters", () => {
    expect(readJweHeader(tokenWith({ alg: "dir", enc: "A256GCM" })).kid).toBeUndefined()
    expect(readJweHeader(tokenWith({ alg: "dir", enc: "A256GCM", kid: "k".repeat(256) })).kid).toBe("k".repeat(256))
    expect(readJweHeader(tokenWith({ alg: "dir", enc: "A256GCM", kid: "k" })).kid).toBe("k")
  })

  it("is refused when longer, empty, or not a string", () => {
    for (const kid of ["k".repeat(257), "", 5, null, ["k"], { k: 1 }, true]) {
      expect(refusal(tokenWith({ alg: "dir", enc: "A256GCM", kid })), JSON.stringify(kid)).toEqual({
        code: "ERR_JWE_MALFORMED",
        message: "The token's kid is not a short string",
      })
    }
  })
})

describe("what the header must be", () => {
  it("a JSON object: null, arrays, strings and numbers are refused as not an object", () => {
    for (const header of [null, [], ["dir"], "dir", 1, true]) {
      expect(refusal(tokenWith(header)), JSON.stringify(header)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token header is not an object" })
    }
  })

  it("strict UTF-8 and JSON: a header with an invalid UTF-8 byte, or no JSON at all, does not parse", () => {
    const json = Buffer.from('{"alg":"dir","enc":"A256GCM","x":"?"}')
    json[json.indexOf("?")] = 0xff // invalid in UTF-8; a lenient decoder makes it U+FFFD and reads on
    expect(refusal(`${segmentOf(json)}${REST}`)).toEqual({ code: "ERR_JWE_MALFORMED", message: "The token header does not parse" })
    expect(refusal(`${segmentOf("{not json")}${REST}`)).toMatchObject({ code: "ERR_JWE_MALFORMED", message: "The token header does not parse" })
  })

  it("alg dir, and enc A256CBC-HS512 or A256GCM, each refused with its own code", () => {
    expect(refusal(tokenWith({ alg: "A256KW", enc: "A256GCM" }))).toEqual({ code: "ERR_JWE_ALG_REFUSED", message: "The token's alg is not dir" })
    expect(refusal(tokenWith({ enc: "A256GCM" }))).toMatchObject({ code: "ERR_JWE_ALG_REFUSED" })
    expect(refusal(tokenWith({ alg: "dir", enc: "A128GCM" }))).toEqual({ code: "ERR_JWE_ENC_REFUSED", message: "The token's enc is not A256CBC-HS512 or A256GCM" })
    expect(refusal(tokenWith({ alg: "dir" }))).toMatchObject({ code: "ERR_JWE_ENC_REFUSED" })
    expect(readJweHeader(tokenWith({ alg: "dir", enc: "A256CBC-HS512" })).enc).toBe("A256CBC-HS512")
  })

  it("refusals carry the name RefusedToken", () => {
    try {
      readJweHeader(tokenWith({ alg: "none", enc: "A256GCM" }))
      expect.unreachable()
    } catch (error) {
      expect((error as Error).name).toBe("RefusedToken")
    }
  })
})

describe("the memo only answers the very same segment", () => {
  it("a different header of the same length is judged afresh", () => {
    const memo: HeaderMemo = {}
    const good = tokenWith({ alg: "dir", enc: "A256GCM", kid: "aaaa" })
    const other = tokenWith({ alg: "dir", enc: "A256GCM", kid: "aaab" })
    const bad = tokenWith({ alg: "dir", enc: "A128GCM", kid: "aaaa" })
    expect(good.indexOf(".")).toBe(other.indexOf("."))
    expect(readJweHeader(good, memo).kid).toBe("aaaa")
    expect(readJweHeader(other, memo).kid).toBe("aaab")
    expect(readJweHeader(good, memo).kid).toBe("aaaa")
    expect(bad.indexOf(".")).toBe(good.indexOf("."))
    expect(refusal(bad, memo)).toMatchObject({ code: "ERR_JWE_ENC_REFUSED" })
  })

  it("a header that is a prefix of the remembered one is judged afresh", () => {
    const memo: HeaderMemo = {}
    const good = tokenWith({ alg: "dir", enc: "A256GCM", kid: "k1" })
    readJweHeader(good, memo)
    const segment = good.slice(0, good.indexOf("."))
    expect(refusal(`${segment.slice(0, -4)}${REST}`, memo)).toMatchObject({ code: "ERR_JWE_MALFORMED" })
  })

  it("without a memo, nothing is kept", () => {
    const good = tokenWith({ alg: "dir", enc: "A256GCM" })
    expect(readJweHeader(good)).toEqual(readJweHeader(good))
  })
})
