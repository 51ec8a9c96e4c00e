/**
 * Issue 18, the fault case of lazily loaded provider kinds: a kind's module that fails to
 * load (a chunk missing from a deployment, a broken dependency) is a configuration error on
 * every request of the configurations that use it — logged, answered like any other
 * configuration error, never an unhandled rejection that ends the process — and costs
 * nothing to configurations that do not use it.
 */
import { describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { captureLogger, credentialsConfig, SECRET } from "./helpers.js"

vi.mock("../src/lib/kinds/oauth.ts", () => {
  throw new Error("the OAuth kind's chunk could not be loaded")
})

const origin = "http://localhost:3000"
const github = { id: "github", name: "GitHub", type: "oauth", issuer: "https://github.example", clientId: "id", clientSecret: "secret" } as OAuthConfig<any>

describe("a provider kind whose module fails to load", () => {
  it("is a configuration error on every request of a configuration that uses it, logged", async () => {
    const { lines, logger } = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, logger, providers: [github] }
    const responses = await Promise.all(Array.from({ length: 50 }, () => Auth(new Request(`${origin}/auth/session`), config)))
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(500))
    // Later requests too: the failure is remembered with the configuration, not retried per request.
    expect((await Auth(new Request(`${origin}/auth/providers`), config)).status).toBe(500)
    expect(lines.join("\n")).toContain("A provider kind could not be loaded or checked")
  })

  it("leaves configurations without such a provider working", async () => {
    const response = await Auth(new Request(`${origin}/auth/providers`), credentialsConfig())
    expect(response.status).toBe(200)
    expect(Object.keys((await response.json()) as object)).toEqual(["credentials"])
  })
})
