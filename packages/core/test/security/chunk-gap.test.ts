import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { encode } from "@portcullis/core/jwt"
import { Browser, SECRET, captureLogger, credentialsConfig, direct, type Transport } from "../helpers.js"
import { httpServer } from "../http-server.js"

/**
 * A chunked session cookie with a gap (issue #12, item 3; T37, T38). Chunks that do not
 * run `.0`, `.1`, … without a gap are never stitched together; and since nobody can read
 * them, every piece the browser sent is deleted — otherwise the browser resends up to
 * ~16 KB of dead cookies on every request, forever.
 */
const salt = "authjs.session-token"
const config = credentialsConfig({ logger: captureLogger().logger })

async function bigToken(): Promise<string[]> {
  const token = await encode({ token: { sub: "user-ada", name: "Ada Lovelace", blob: "y".repeat(12_000) }, secret: SECRET, salt })
  const chunks = token.match(/.{1,3936}/g)!
  expect(chunks.length).toBeGreaterThanOrEqual(4)
  return chunks
}

/** The names whose deletion (Max-Age=0, empty value) a response carries. */
function deleted(response: Response): string[] {
  return response.headers
    .getSetCookie()
    .filter((c) => /;\s*Max-Age=0\b/i.test(c))
    .map((c) => c.slice(0, c.indexOf("=")))
    .sort()
}

const matrix: [string, () => Promise<{ transport: Transport; origin: string; close?: () => Promise<void> }>][] = [
  ["Auth()", async () => ({ transport: direct(config), origin: "http://localhost:3000" })],
  ["a real HTTP server", () => httpServer(config)],
]

describe.each(matrix)("GET /session with chunks that do not assemble, through %s", (_name, start) => {
  let transport: Transport
  let origin: string
  let close: (() => Promise<void>) | undefined
  beforeAll(async () => {
    ;({ transport, origin, close } = await start())
  })
  afterAll(() => close?.())

  const session = (cookie: string) => transport(new Request(`${origin}/auth/session`, { headers: { cookie } }))

  it.each([
    ["`.0` and `.2` without `.1`", [0, 2]],
    ["`.1` and `.2` without `.0`", [1, 2]],
    ["`.0`, `.1` and `.3` without `.2`", [0, 1, 3]],
  ])("%s → null, and every chunk sent is deleted", async (_case, present) => {
    const chunks = await bigToken()
    const response = await session(present.map((i) => `${salt}.${i}=${chunks[i]}`).join("; "))
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    const names = deleted(response)
    for (const i of present) expect(names).toContain(`${salt}.${i}`)
  })

  it("an empty first chunk → null and deleted", async () => {
    const response = await session(`${salt}.0=`)
    expect(await response.json()).toBeNull()
    expect(deleted(response)).toContain(`${salt}.0`)
  })

  it("a browser that lost one chunk of its session is cleaned up, then signs in again", async () => {
    const browser = new Browser(transport, origin)
    const chunks = await bigToken()
    chunks.forEach((value, i) => i !== 1 && browser.jar.set(`${salt}.${i}`, { value, attributes: {} }))
    expect(await browser.session()).toBeNull()
    expect([...browser.jar.keys()].filter((k) => k.startsWith(salt))).toEqual([])
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })

  it("without any session cookie nothing is deleted (no Set-Cookie on anonymous checks)", async () => {
    const response = await session("other=1")
    expect(await response.json()).toBeNull()
    expect(response.headers.getSetCookie().filter((c) => c.startsWith(salt))).toEqual([])
  })
})
