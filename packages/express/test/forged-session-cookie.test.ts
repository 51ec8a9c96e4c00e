/**
 * Attack on "jwt.decode now rejects": `getSession(req, config)` with a forged or foreign
 * session cookie must answer null (no 500 from the route that asked), with the built-in
 * decoder and with an app decoder delegating to `jwt.decode`, which rejects.
 */
import { describe, expect, it } from "vitest"
import { getSession, type ExpressAuthConfig } from "@portcullis/express"
import { decode, encode } from "@portcullis/core/jwt"
import { credentialsConfig, SECRET } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"

const salt = "authjs.session-token"
const silent = () => ({ error: () => {}, warn: () => {}, debug: () => {} })

describe.each([
  ["the built-in decoder", {}],
  ["an app decoder delegating to jwt.decode", { jwt: { encode, decode: (p: Parameters<typeof decode>[0]) => decode(p) } }],
] as const)("attack: getSession with forged session cookies, %s", (_, extra) => {
  it("answers null for each, and the route answers 200", async () => {
    const config: ExpressAuthConfig = credentialsConfig({ logger: silent(), ...(extra as Partial<ExpressAuthConfig>) })
    const server = await expressServer(config, (app) => {
      app.get("/me", async (req, res, next) => {
        try {
          res.json({ session: await getSession(req as any, config) })
        } catch (e) {
          next(e)
        }
      })
    })
    try {
      const cookies = [
        `${salt}=garbage`,
        `${salt}=${await encode({ token: { sub: "victim" }, secret: "somebody-elses-secret-somebody-elses", salt })}`,
        `${salt}=${await encode({ token: { sub: "victim" }, secret: SECRET, salt, maxAge: -60 })}`,
        `${salt}.0=eyJhbGciOiJkaXIifQ; ${salt}.2=x`,
      ]
      for (const cookie of cookies) {
        const response = await server.transport(new Request(`${server.origin}/me`, { headers: { cookie } }))
        expect(response.status, cookie.slice(0, 40)).toBe(200)
        expect(await response.json()).toEqual({ session: null })
      }
    } finally {
      await server.close()
    }
  })
})
