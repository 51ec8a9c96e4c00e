import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { breachLookup, type BreachCheck } from "../../src/lib/password-flows/breached.js"

/**
 * How the breached-password check reads the range API's answer (`breachLookup` in
 * `lib/password-flows/breached.ts`), through the `fetch` option: which rows count, which
 * answers are not range answers at all, and which responses are failures rather than
 * verdicts. A failure taken for "not breached" would let a listed password through, so each
 * case says which it is.
 */

const PASSWORD = "copper meadow whistle saturn"
const HASH = createHash("sha1").update(PASSWORD, "utf8").digest("hex").toUpperCase()
const PREFIX = HASH.slice(0, 5)
const SUFFIX = HASH.slice(5)
/** A suffix under no password of these tests. */
const OTHER = "0".repeat(35)

function check(fetch: typeof globalThis.fetch, timeout = 1500): BreachCheck {
  return { url: "https://pwned.example", minCount: 1, timeout, onError: "open", fetch }
}

/** A range API answering `body` with `status` to every request. */
const answering = (body: BodyInit | null, status = 200): typeof globalThis.fetch => async () => new Response(body, { status })

describe("the rows of an answer", () => {
  it("the password's own row gives its count, wherever it is among the others", async () => {
    expect(await breachLookup(check(answering(`${OTHER}:9\r\n${SUFFIX}:52317\r\n${"1".repeat(35)}:4`)), PASSWORD)).toEqual({ count: 52317 })
  })

  it("a suffix in lower case, or with spaces around the suffix or the count, is the same row", async () => {
    expect(await breachLookup(check(answering(`  ${SUFFIX.toLowerCase()} :  12 \n`)), PASSWORD)).toEqual({ count: 12 })
  })

  it("no row for the password: seen 0 times", async () => {
    expect(await breachLookup(check(answering(`${OTHER}:9\r\n${"1".repeat(35)}:4\r\n`)), PASSWORD)).toEqual({ count: 0 })
  })

  it("the password's suffix as a padding row (count 0): seen 0 times", async () => {
    expect(await breachLookup(check(answering(`${SUFFIX}:0`)), PASSWORD)).toEqual({ count: 0 })
  })

  it("blank lines (empty or only spaces) between rows are skipped", async () => {
    expect(await breachLookup(check(answering(`${OTHER}:1\r\n\r\n   \r\n${SUFFIX}:3\r\n`)), PASSWORD)).toEqual({ count: 3 })
  })

  it("an empty answer lists nothing: seen 0 times", async () => {
    expect(await breachLookup(check(answering("")), PASSWORD)).toEqual({ count: 0 })
  })

  it("a 200 with no body at all lists nothing either", async () => {
    expect(await breachLookup(check(answering(null)), PASSWORD)).toEqual({ count: 0 })
  })
})

describe("an answer that is not a range answer", () => {
  it.each([
    ["a line with no colon", `${OTHER}:1\r\n<html>\r\n${SUFFIX}:3`],
    ["a count that is not a number", `${SUFFIX}:many`],
    ["a negative count", `${SUFFIX}:-1`],
    ["a count with a fraction", `${SUFFIX}:2.5`],
    ["a count past the safe integers", `${SUFFIX}:9007199254740993`],
  ])("%s is malformed, not a verdict", async (_label, body) => {
    expect(await breachLookup(check(answering(body)), PASSWORD)).toEqual({ failure: "malformed" })
  })
})

describe("what is asked", () => {
  it("the prefix of the password's hash under <url>/range/, asking for padding, without following redirects, under a signal", async () => {
    const asked: { url: string; init: RequestInit | undefined }[] = []
    const fetch: typeof globalThis.fetch = async (input, init) => {
      asked.push({ url: String(input), init })
      return new Response(`${SUFFIX}:1`)
    }
    await breachLookup(check(fetch), PASSWORD)
    expect(asked).toHaveLength(1)
    expect(asked[0]!.url).toBe(`https://pwned.example/range/${PREFIX}`)
    expect(asked[0]!.init?.headers).toEqual({ "Add-Padding": "true" })
    expect(asked[0]!.init?.redirect).toBe("error")
    expect(asked[0]!.init?.signal).toBeInstanceOf(AbortSignal)
  })
})

describe("a response that is a failure, not a verdict", () => {
  it.each([201, 204, 404, 503])("status %i, even with the password's row in its body", async (status) => {
    const body = status === 204 ? null : `${SUFFIX}:7`
    expect(await breachLookup(check(answering(body, status)), PASSWORD)).toEqual({ failure: "status" })
  })

  it("a status other than 200 with no body is the same failure", async () => {
    expect(await breachLookup(check(answering(null, 500)), PASSWORD)).toEqual({ failure: "status" })
  })

  it("a fetch that throws: unreachable", async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError("fetch failed")
    }
    expect(await breachLookup(check(fetch), PASSWORD)).toEqual({ failure: "unreachable" })
  })

  it("a body that breaks off: unreachable", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${OTHER}:1\r\n`))
        controller.error(new Error("connection reset"))
      },
    })
    expect(await breachLookup(check(answering(body)), PASSWORD)).toEqual({ failure: "unreachable" })
  })

  it("a server that does not answer within the timeout: timeout, as soon as the timeout passes", async () => {
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason)))
    const started = Date.now()
    expect(await breachLookup(check(fetch, 100), PASSWORD)).toEqual({ failure: "timeout" })
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it("an answer whose body is still coming when the timeout passes: timeout", async () => {
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`${OTHER}:1\r\n`))
          init!.signal!.addEventListener("abort", () => controller.error(init!.signal!.reason))
        },
      })
      return new Response(body)
    }
    expect(await breachLookup(check(fetch, 100), PASSWORD)).toEqual({ failure: "timeout" })
  })

  it("a status other than 200 after the timeout passed: timeout", async () => {
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise((resolve) => init!.signal!.addEventListener("abort", () => resolve(new Response("late", { status: 502 }))))
    expect(await breachLookup(check(fetch, 50), PASSWORD)).toEqual({ failure: "timeout" })
  })
})
