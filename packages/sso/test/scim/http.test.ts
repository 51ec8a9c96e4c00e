/**
 * The SCIM server behind a real Node HTTP server (scimFetchHandler): the bytes a client
 * sends — `application/scim+json` bodies, `If-Match`, the bearer header — and what comes
 * back, including a body too large (413) and one that is not JSON (400).
 */
import { createServer, type Server } from "node:http"
import { Readable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scimFetchHandler } from "../../src/scim/index.js"
import { PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

let server: Server
let origin: string
let w: World
let token: string

beforeAll(async () => {
  w = world()
  token = (await w.token("org-a")).token
  const handle = scimFetchHandler({ basePath: "/auth/sso/scim", store: w.store, directoryFor: (t) => w.directory(t.organizationId), maxBodyBytes: 64 * 1024 })
  server = createServer(async (req, res) => {
    const hasBody = req.method !== "GET" && req.method !== "HEAD"
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method!,
      headers: req.headers as Record<string, string>,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit)
    const response = await handle(request)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(Buffer.from(await response.arrayBuffer()))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as { port: number }
  origin = `http://127.0.0.1:${address.port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${origin}/auth/sso/scim/conn-org-a/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  })

describe("SCIM over HTTP", () => {
  it("provisions, reads with the ETag, deactivates under If-Match and deletes", async () => {
    const created = await send("POST", "/Users", { schemas: [USER_SCHEMA], userName: "ada@acme.com", emails: [{ value: "ada@acme.com", primary: true }] })
    expect(created.status).toBe(201)
    expect(created.headers.get("content-type")).toBe("application/scim+json")
    const body = await created.json()
    expect(created.headers.get("location")).toBe(`${origin}/auth/sso/scim/conn-org-a/v2/Users/${body.id}`)

    const read = await send("GET", `/Users?filter=${encodeURIComponent('userName eq "ada@acme.com"')}`)
    expect((await read.json()).totalResults).toBe(1)
    const one = await send("GET", `/Users/${body.id}`)
    const etag = one.headers.get("etag")!
    expect(etag).toBe('W/"1"')

    const patched = await send("PATCH", `/Users/${body.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] }, { "if-match": etag })
    expect(patched.status).toBe(200)
    expect((await patched.json()).active).toBe(false)
    expect(w.members.has(`org-a\n${body.id}`)).toBe(false)

    const deleted = await send("DELETE", `/Users/${body.id}`)
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe("")
  })

  it("answers 401 with WWW-Authenticate without a token", async () => {
    const res = await fetch(`${origin}/auth/sso/scim/conn-org-a/v2/Users`)
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="SCIM"')
    expect(await res.json()).toMatchObject({ status: "401" })
  })

  it("refuses a body over the cap with 413 and one that is not JSON with 400", async () => {
    const big = await send("POST", "/Users", { schemas: [USER_SCHEMA], userName: "big@acme.com", title: "x".repeat(70 * 1024) })
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ status: "413" })
    const bad = await send("POST", "/Users", "{not json")
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ scimType: "invalidSyntax" })
  })

  it("answers 404 outside the base path and 405 for other methods", async () => {
    expect((await fetch(`${origin}/elsewhere`)).status).toBe(404)
    expect((await fetch(`${origin}/auth/sso/scim/conn-org-a/v2/Users`, { method: "OPTIONS", headers: { authorization: `Bearer ${token}` } })).status).toBe(405)
  })
})
