/**
 * The key ring's header memo (`readJweHeader` with a `HeaderMemo`) answers a token from
 * memory only when the token *begins* with the remembered header segment. Every other
 * part of a token is the sender's to write, so a token that merely contains or ends with
 * the remembered segment — with a refused header of the same length in front — is judged
 * on its own header, and refused.
 */
import { describe, expect, it } from "vitest"
import { readJweHeader, type HeaderMemo } from "../../src/lib/jwt/header.js"

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

describe("a token whose own header is refused, carrying the remembered segment elsewhere", () => {
  const good = b64({ alg: "dir", enc: "A256CBC-HS512", kid: "k1" })
  // The same length as the good header: only `alg` differs.
  const refused = b64({ alg: "xyz", enc: "A256CBC-HS512", kid: "k1" })

  it("is refused for its own header even when it ends with the remembered one", () => {
    expect(refused.length).toBe(good.length)
    const memo: HeaderMemo = {}
    readJweHeader(`${good}..AAAAAAAAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA`, memo)
    expect(memo.last?.segment).toBe(good)
    expect(() => readJweHeader(`${refused}..AAAAAAAAAAAAAAAAAAAAAA.AAAA.${good}`, memo)).toThrow(expect.objectContaining({ code: "ERR_JWE_ALG_REFUSED" }))
    expect(() => readJweHeader(`${refused}..${good}.AAAA.AAAAAAAAAAAAAAAAAAAAAA`, memo)).toThrow(expect.objectContaining({ code: "ERR_JWE_ALG_REFUSED" }))
    // The memo still holds the good header, untouched by the refusals.
    expect(memo.last?.segment).toBe(good)
  })
})
