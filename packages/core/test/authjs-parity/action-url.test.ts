/**
 * `createActionURL` and `setEnvDefaults` build URLs and warn as Auth.js's do (issue #16 C.4):
 * the path of `AUTH_URL` is the base path when `basePath` is unset, and a differing
 * `basePath` (a trailing slash counts) wins with `env-url-basepath-mismatch`, logged
 * through the default logger when the app has none. Each case runs through both libraries.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { createActionURL as authJsActionURL, setEnvDefaults as authJsEnvDefaults } from "@auth/core"
import { createActionURL, setEnvDefaults, type AuthConfig } from "@portcullis/core"

const headers = new Headers({ host: "app.example", "x-forwarded-proto": "https" })

/** Runs one case through both libraries and collects the warnings each logged. */
function both(env: Record<string, string>, basePath: string | undefined) {
  const ourWarnings: string[] = []
  const theirWarnings: string[] = []
  const ours = createActionURL("session", "http", headers, env, { basePath, logger: { warn: (code) => ourWarnings.push(code) } })
  const theirs = authJsActionURL("session", "http", headers, env, { basePath, logger: { warn: (code: string) => theirWarnings.push(code) } } as any)
  return { ours: ours.href, theirs: theirs.href, ourWarnings, theirWarnings }
}

describe("createActionURL builds the URL Auth.js builds", () => {
  it.each([
    ["AUTH_URL with a path, basePath unset: the path is the base", { AUTH_URL: "https://main.example/api/auth" }, undefined, "https://main.example/api/auth/session"],
    ["AUTH_URL with a path and a trailing slash, basePath unset", { AUTH_URL: "https://main.example/api/auth/" }, undefined, "https://main.example/api/auth/session"],
    ["AUTH_URL origin only, basePath set", { AUTH_URL: "https://main.example" }, "/api/auth", "https://main.example/api/auth/session"],
    ["AUTH_URL and basePath agree", { AUTH_URL: "https://main.example/api/auth" }, "/api/auth", "https://main.example/api/auth/session"],
    ["AUTH_URL and basePath differ: basePath wins", { AUTH_URL: "https://main.example/custom" }, "/api/auth", "https://main.example/api/auth/session"],
    ["NEXTAUTH_URL is read too", { NEXTAUTH_URL: "https://legacy.example/api/auth" }, undefined, "https://legacy.example/api/auth/session"],
    ["no AUTH_URL: forwarded host and protocol, then basePath", {}, "/auth", "https://app.example/auth/session"],
    ["no AUTH_URL and no basePath: the action at the root", {}, undefined, "https://app.example/session"],
  ])("%s", (_name, env, basePath, expected) => {
    const { ours, theirs } = both(env as Record<string, string>, basePath)
    expect(ours).toBe(theirs)
    expect(ours).toBe(expected)
  })
})

describe("an AUTH_URL path that differs from basePath warns env-url-basepath-mismatch", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.each([
    ["a different path", "https://main.example/custom", "/api/auth", true],
    ["a trailing slash", "https://main.example/api/auth/", "/api/auth", true],
    ["the same path", "https://main.example/api/auth", "/api/auth", false],
    ["an origin without a path", "https://main.example", "/api/auth", false],
  ])("%s", (_name, url, basePath, warns) => {
    const { ourWarnings, theirWarnings } = both({ AUTH_URL: url }, basePath)
    expect(ourWarnings).toEqual(theirWarnings)
    expect(ourWarnings).toEqual(warns ? ["env-url-basepath-mismatch"] : [])
  })

  it("without a logger in the config, the default logger writes it", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    createActionURL("session", "https", headers, { AUTH_URL: "https://main.example/api/auth/" }, { basePath: "/api/auth" })
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringContaining("[auth][warn][env-url-basepath-mismatch]")])
  })

  it("hostile: a malformed forwarded host is an InvalidRequest, not a URL with a smuggled path", () => {
    expect(() => createActionURL("session", "https", new Headers({ host: "evil.example/x?" }), {}, { basePath: "/auth" })).toThrow(/InvalidRequest|host/i)
  })
})

describe("setEnvDefaults warns env-url-basepath-redundant as Auth.js does", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it("when AUTH_URL and basePath are both set, even with an origin-only AUTH_URL, unless suppressed", () => {
    for (const url of ["https://main.example", "https://main.example/api/auth"]) {
      const ours: string[] = []
      const theirs: string[] = []
      setEnvDefaults({ AUTH_URL: url }, { providers: [], basePath: "/api/auth", logger: { warn: (c) => ours.push(c) } } as AuthConfig)
      authJsEnvDefaults({ AUTH_URL: url }, { providers: [], basePath: "/api/auth", logger: { warn: (c: string) => theirs.push(c) } } as any)
      expect(ours).toEqual(theirs)
      expect(ours).toEqual(["env-url-basepath-redundant"])
    }
    const suppressed: string[] = []
    setEnvDefaults({ AUTH_URL: "https://main.example/x" }, { providers: [], basePath: "/api/auth", logger: { warn: (c) => suppressed.push(c) } } as AuthConfig, true)
    expect(suppressed).toEqual([])
  })
})
