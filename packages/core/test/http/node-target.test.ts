/**
 * The URL core's Node path builds from a request target (`prepare` in `lib/http/node.ts`):
 * only the target's path and query, on the origin worked out for the request. Most targets
 * take the short way (appended to the origin: one URL parse); the rest are resolved first.
 * Both ways must give the URL the resolving way gives — a target must never carry its own
 * host, fragment or a path the origin would read differently into what core sees.
 */
import { describe, expect, it } from "vitest"
import { prepare, type NodeRequest } from "../../src/lib/http/node.js"

const ORIGIN = "https://app.example"

/** The definition: the target resolved on a placeholder host, its path and query on the origin. */
function resolved(target: string): string | undefined {
  try {
    const { pathname, search } = new URL(target, "http://target.invalid")
    return new URL(`${ORIGIN}${pathname}${search}`).href
  } catch {
    return undefined
  }
}

function preparedUrl(target: string): string | undefined {
  const request: NodeRequest = { method: "GET", origin: ORIGIN, target, headers: {} }
  const prepared = prepare(request, ORIGIN, "GET")
  return "web" in prepared ? prepared.web.url : undefined
}

describe("the URL of a request target", () => {
  it("is the origin's, with the target's path and query, for targets of every shape", () => {
    const targets = [
      "/auth/session",
      "/auth/oidc/userinfo?x=1&y=%20",
      "/",
      "//evil.example/auth/session",
      "/\\evil.example/auth/session",
      "/\\\\evil.example",
      "http://evil.example/auth/session",
      "https://user:pass@evil.example:8443/x?y",
      "/auth/../admin",
      "/auth/%2e%2e/admin",
      "/auth/%2E%2E/%2e/admin",
      "/a/./b/../../c",
      "/..//evil.example",
      "/auth/session#frag",
      "/auth/session?x=#frag",
      "/auth/ses sion",
      "/auth/\tsession",
      "/auth/\nsession",
      "/auth/séance",
      "/auth/%zz",
      "/auth/session?redirect=//evil.example",
      "/auth/session?a=\\b",
      "*",
      "",
      "auth/session",
      "/:/x",
      "/@evil.example",
      "/auth/session;jsessionid=1",
      "/auth/%00",
      "/auth/\u0000",
      "/auth/\u007f",
      "/?",
      "/??",
      "/auth/session/",
    ]
    for (const target of targets) expect(preparedUrl(target), JSON.stringify(target)).toBe(resolved(target))
  })

  it("agrees with the definition on generated targets", () => {
    const pieces = ["/", "//", "\\", ".", "..", "%2e", "%2E", "#", "?", "a", "auth", "@", ":", "%", "%20", " ", "\t", "é", "evil.example", "=", "&"]
    let seed = 11
    const pick = () => pieces[(seed = (seed * 1103515245 + 12345) % 2147483648) % pieces.length]!
    for (let i = 0; i < 3000; i++) {
      const target = `/${Array.from({ length: 1 + (i % 7) }, pick).join("")}`
      expect(preparedUrl(target), JSON.stringify(target)).toBe(resolved(target))
    }
  })

  it("never names another host than the origin's", () => {
    for (const target of ["//evil.example/x", "/\\evil.example/x", "http://evil.example/x", "/..//evil.example/x", "/%2f%2fevil.example/x"]) {
      expect(new URL(preparedUrl(target)!).host).toBe("app.example")
    }
  })
})
