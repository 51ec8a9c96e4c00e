/**
 * Moved from core's origin-trust attacks (issue 12), because it tests Express: an
 * absolute-form request target (`GET http://evil.example/auth/… HTTP/1.1` with
 * `Host: app.example`) once set core's origin from the request line while Express —
 * `req.hostname`, `trust proxy`, and any Host allow-list the app runs — read the Host
 * header. An app that enables trustHost because it checks Host itself had that check
 * bypassed. Fixed: the middleware places only the target's path and query on the origin
 * Express saw.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import { SECRET } from "../../core/test/helpers.js"
import { rawRequest } from "../../core/test/raw-http.js"
import { expressServer } from "./support.js"

describe("Express: the host in an absolute-form request target (FIXED)", () => {
  it("core sees the Host that Express and the app's own Host check saw, not the request line's", async () => {
    const seen: string[] = []
    const config: AuthConfig = { secret: SECRET, trustHost: true, providers: [{ id: "fake", name: "Fake", type: "oidc", issuer: "https://op.example", clientId: "x" } as OAuthConfig<any>] }
    const server = await expressServer(config, (app) => {
      // The deployment's Host allow-list: only app.example gets through.
      app.use((req, res, next) => {
        seen.push(req.hostname)
        if (req.hostname !== "app.example") return void res.status(421).end()
        next()
      })
    })
    try {
      const port = Number(new URL(server.origin).port)
      const host = ["Host: app.example"]
      const absolute = await rawRequest(port, "http://evil.example/auth/providers", host)
      expect(seen).toEqual(["app.example"])
      const providers = JSON.parse(absolute.body) as Record<string, { callbackUrl: string }>
      expect(new URL(providers.fake!.callbackUrl).origin).toBe("http://app.example")
      // A request line with a path only is unchanged.
      expect((await rawRequest(port, "/auth/providers", host)).body).toContain("http://app.example/auth/callback/fake")
      // A protocol-relative path names no host either.
      expect((await rawRequest(port, "//evil.example/auth/providers", host)).body).not.toContain("evil.example/auth/callback")
    } finally {
      await server.close()
    }
  })
})
