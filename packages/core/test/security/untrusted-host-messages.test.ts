import { describe, expect, it } from "vitest"
import { UntrustedHost } from "@portcullis/core/errors"
import type { RequestContext } from "../../src/lib/context.js"
import { refuseForgedLoopback, requireTrustedOrigin } from "../../src/lib/origin-trust.js"

/**
 * The two origin-trust refusals (`lib/origin-trust.ts`) on their own: which origins pass,
 * and what the operator reads in the log — the refused origin, and the setting that fixes
 * it when the origin is genuinely the site's. The attacks that reach them through `Auth()`
 * are in `origin-trust.test.ts` and `origin-trust-attacks.test.ts`.
 */
const ctx = (origin: string, originTrusted: boolean) => ({ origin, originTrusted }) as RequestContext

function refusal(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(UntrustedHost)
    return (error as Error).message
  }
  throw new Error("not refused")
}

describe("requireTrustedOrigin", () => {
  it("returns a trusted origin, whatever it is", () => {
    expect(requireTrustedOrigin(ctx("https://app.example", true), "Mailing a sign-in link")).toBe("https://app.example")
    expect(requireTrustedOrigin(ctx("http://localhost:3000", true), "Mailing a sign-in link")).toBe("http://localhost:3000")
  })

  it("refuses an untrusted one, naming the purpose, the origin, why, and the two settings that fix it", () => {
    expect(refusal(() => requireTrustedOrigin(ctx("https://evil.example", false), "Mailing a sign-in link"))).toContain(
      "Mailing a sign-in link needs a trusted origin, and https://evil.example comes only from the request's Host header, which anyone can forge. " +
        "Set AUTH_URL to the site's URL, or list the origin in trustedOrigins (AUTH_TRUSTED_ORIGINS).",
    )
  })
})

describe("refuseForgedLoopback", () => {
  it("lets a trusted loopback origin and any non-loopback origin through", () => {
    expect(() => refuseForgedLoopback(ctx("http://localhost:3000", true))).not.toThrow()
    expect(() => refuseForgedLoopback(ctx("https://evil.example", false))).not.toThrow()
  })

  it.each(["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:3000", "http://app.localhost"])("refuses the untrusted loopback origin %s, naming the fix", (origin) => {
    expect(refusal(() => refuseForgedLoopback(ctx(origin, false)))).toContain(
      `An OAuth sign-in on the loopback origin ${origin} is refused in production: no browser reaches a deployed site there, so the Host was forged. ` +
        `Set AUTH_URL (or trustedOrigins) if this deployment really is served on ${origin}.`,
    )
  })
})
