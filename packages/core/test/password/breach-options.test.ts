import { describe, expect, it } from "vitest"
import { breachCheckOf, breachOptionsProblem, DEFAULT_RANGE_URL, originOf, type BreachCheck } from "../../src/lib/password-flows/breached.js"

/**
 * The options of `policy.breached` (`lib/password-flows/breached.ts`): what the provider's
 * configuration check refuses, with the sentence it refuses it with (the developer reads it
 * in the configuration error), what it accepts, the check the options resolve to, and the
 * origin the failure warning names.
 */

const noFetch = (() => {}) as unknown as typeof fetch

describe("options refused, each with its own sentence", () => {
  it.each([
    [null, "has policy.breached that is not an object; use { } or { url, minCount, timeout, onError, fetch }"],
    ["on", "has policy.breached that is not an object; use { } or { url, minCount, timeout, onError, fetch }"],
    [true, "has policy.breached that is not an object; use { } or { url, minCount, timeout, onError, fetch }"],
    [{ enabled: "yes" }, 'has policy.breached.enabled "yes"; use true or false'],
    [{ enabled: 1 }, "has policy.breached.enabled 1; use true or false"],
    [{ url: 443 }, "has policy.breached.url 443; use an http(s) URL (the range API's base, without /range)"],
    [{ url: new URL("https://pwned.example") }, 'has policy.breached.url "https://pwned.example/"; use an http(s) URL (the range API\'s base, without /range)'],
    [{ url: "api.pwnedpasswords.com" }, 'has policy.breached.url "api.pwnedpasswords.com"; use an http(s) URL (the range API\'s base, without /range)'],
    [{ url: "ftp://mirror.example" }, 'has policy.breached.url "ftp://mirror.example"; use an http(s) URL (the range API\'s base, without /range)'],
    [{ url: "git+https://mirror.example" }, 'has policy.breached.url "git+https://mirror.example"; use an http(s) URL (the range API\'s base, without /range)'],
    [{ url: "httpss://mirror.example" }, 'has policy.breached.url "httpss://mirror.example"; use an http(s) URL (the range API\'s base, without /range)'],
    [{ minCount: 0 }, "has policy.breached.minCount 0; use a whole number of at least 1"],
    [{ minCount: 1.5 }, "has policy.breached.minCount 1.5; use a whole number of at least 1"],
    [{ minCount: "3" }, 'has policy.breached.minCount "3"; use a whole number of at least 1'],
    [{ timeout: 0 }, "has policy.breached.timeout 0; use a positive number of milliseconds"],
    [{ timeout: -1 }, "has policy.breached.timeout -1; use a positive number of milliseconds"],
    [{ timeout: "1500" }, 'has policy.breached.timeout "1500"; use a positive number of milliseconds'],
    [{ timeout: Number.POSITIVE_INFINITY }, "has policy.breached.timeout null; use a positive number of milliseconds"],
    [{ timeout: Number.NaN }, "has policy.breached.timeout null; use a positive number of milliseconds"],
    [{ onError: "ignore" }, 'has policy.breached.onError "ignore"; use "open" or "closed"'],
    [{ fetch: "https://proxy.example" }, "has policy.breached.fetch that is not a function"],
  ])("%j: %s", (policy, sentence) => {
    expect(breachOptionsProblem(policy)).toBe(sentence)
  })
})

describe("options accepted", () => {
  it.each([
    ["none at all", undefined],
    ["an empty object", {}],
    ["every option at an edge it allows", { enabled: false, url: "http://127.0.0.1:8080/pwned", minCount: 1, timeout: 0.5, onError: "open", fetch: noFetch }],
    ["an https URL and failing closed", { enabled: true, url: "https://pwned.example", onError: "closed" }],
  ])("%s", (_label, policy) => {
    expect(breachOptionsProblem(policy)).toBeUndefined()
  })
})

describe("the check the options resolve to", () => {
  it("is none without options, and none with enabled: false", () => {
    expect(breachCheckOf(undefined)).toBeUndefined()
    expect(breachCheckOf({ enabled: false, url: "https://pwned.example" })).toBeUndefined()
  })

  it("is on with enabled: true, with the defaults for what is not given", () => {
    expect(breachCheckOf({ enabled: true })).toEqual({ url: DEFAULT_RANGE_URL, minCount: 1, timeout: 1500, onError: "open", fetch: undefined })
  })

  it("keeps what is given", () => {
    expect(breachCheckOf({ url: "https://pwned.example/api", minCount: 5, timeout: 300, onError: "closed", fetch: noFetch })).toEqual({
      url: "https://pwned.example/api",
      minCount: 5,
      timeout: 300,
      onError: "closed",
      fetch: noFetch,
    })
  })

  it("drops every trailing slash of the URL, and only those", () => {
    expect(breachCheckOf({ url: "https://pwned.example//mirror///" })!.url).toBe("https://pwned.example//mirror")
    expect(breachCheckOf({ url: "https://pwned.example/" })!.url).toBe("https://pwned.example")
  })
})

describe("the origin the failure warning names", () => {
  const check = (url: string): BreachCheck => ({ url, minCount: 1, timeout: 1500, onError: "open", fetch: undefined })

  it("is the URL's origin, without the path or the credentials a mirror's URL may carry", () => {
    expect(originOf(check("https://user:s3cret@pwned.example:8443/private/api"))).toBe("https://pwned.example:8443")
  })

  it("is a placeholder for a URL that does not parse", () => {
    expect(originOf(check("not a url"))).toBe("(invalid url)")
  })
})
