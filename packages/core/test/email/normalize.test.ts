import { describe, expect, it } from "vitest"
import { AddressRefused, checkAddress, normalizeEmail } from "../../src/lib/email/normalize.js"

/**
 * The default address normaliser (checklist T49, bad inputs of §2.5): one canonical
 * form for lookup, token binding and sending, and exactly one mailbox.
 */
describe("normalizeEmail", () => {
  it.each([
    ["ada@example.com", "ada@example.com"],
    ["  Ada@Example.COM \n", "ada@example.com"],
    ["ADA+news@example.com", "ada+news@example.com"],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ["first.last@sub.example.co.uk", "first.last@sub.example.co.uk"],
    // NFD input (e + combining acute) becomes the composed NFC form.
    ["jose\u0301@exa\u0301mple.com", "jos\u00e9@ex\u00e1mple.com"],
    ["Ünïcödé@bücher.de", "ünïcödé@bücher.de"],
  ])("accepts %j as %j", (input, expected) => {
    expect(normalizeEmail(input)).toBe(expected)
  })

  it("is idempotent, so the link's address matches the stored one", () => {
    for (const input of ["  A.B+c@Example.com", "jose\u0301@example.com", "ÉLAN@ÉCOLE.fr"]) {
      const once = normalizeEmail(input)
      expect(normalizeEmail(once)).toBe(once)
    }
  })

  it.each([
    ["a@x.com,b@evil.com", "forbidden-character"],
    ["a@x.com;b@evil.com", "forbidden-character"],
    ["a@x.com\r\nBcc: b@evil.com", "forbidden-character"],
    ["a@x.com\nb@evil.com", "forbidden-character"],
    ["a@x.com b@evil.com", "forbidden-character"],
    ['"Ada" <a@x.com>', "forbidden-character"],
    ["Ada <a@x.com>", "forbidden-character"],
    ['"a b"@x.com', "forbidden-character"],
    ["a@b@x.com", "not-one-address"],
    ["@x.com", "not-one-address"],
    ["ada@", "not-one-address"],
    ["ada", "not-one-address"],
    ["", "missing"],
    ["   ", "missing"],
    ["a@localhost", "bad-domain"],
    ["a@x.com.", "bad-domain"],
    ["a@-x.com", "bad-domain"],
    ["a@x..com", "bad-domain"],
    ["a@1.2.3.4", "bad-domain"],
    ["a@[127.0.0.1]", "forbidden-character"],
    [".a@x.com", "bad-local-part"],
    ["a..b@x.com", "bad-local-part"],
    ["a\u200b@x.com", "bad-local-part"],
    ["a\u202e@x.com", "bad-local-part"],
    ["a\u0000@x.com", "forbidden-character"],
    ["ａ＠x.com", "not-one-address"],
  ])("refuses %j (%s)", (input, reason) => {
    expect(() => normalizeEmail(input)).toThrow(AddressRefused)
    try {
      normalizeEmail(input)
    } catch (error) {
      expect((error as AddressRefused).reason).toBe(reason)
    }
  })

  it("refuses over-long addresses: 320 characters in all, 64 in the local part", () => {
    const domain = `${"d".repeat(60)}.${"e".repeat(60)}.${"f".repeat(60)}.${"g".repeat(60)}.com`
    expect(normalizeEmail(`${"a".repeat(64)}@example.com`)).toHaveLength(64 + 12)
    expect(() => normalizeEmail(`${"a".repeat(65)}@example.com`)).toThrow(/bad-local-part/)
    expect(() => normalizeEmail(`${"a".repeat(64)}@${domain}${".hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh".repeat(2)}`)).toThrow(/too-long|bad-domain/)
    expect(() => normalizeEmail(`${"a".repeat(5000)}@example.com`)).toThrow(/too-long/)
  })

  it("refuses values that are not strings (a repeated form field, a JSON array)", () => {
    for (const input of [undefined, null, 42, ["a@x.com", "b@y.com"], { email: "a@x.com" }]) {
      expect(() => normalizeEmail(input)).toThrow(/missing/)
    }
  })
})

describe("checkAddress (the floor under custom normalisers)", () => {
  it("lets a differently-canonical single address through", () => {
    expect(() => checkAddress("Ada@Example.com")).not.toThrow()
    expect(() => checkAddress("ada@localhost")).not.toThrow()
  })

  it.each(["a@x.com,b@y.com", "a@x.com\r\nBcc: b@y.com", "<a@x.com>", "a@b@c", "x".repeat(321) + "@x.com"])("refuses %j", (value) => {
    expect(() => checkAddress(value)).toThrow(AddressRefused)
  })
})
