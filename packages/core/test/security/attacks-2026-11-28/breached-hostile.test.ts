/**
 * The breached-password check against a hostile range server (issue 28): whoever controls
 * (or sits in front of) the configured range API tries to hang the sign-up, fill the
 * server's memory, or learn more of the password than the 5-character prefix. Real sockets
 * on loopback, each server misbehaving in its own way; the check is configured fail-closed
 * with a 400 ms timeout, so every attack must end as `PasswordCheckUnavailable` in about
 * that time, with nothing stored.
 */
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { LIGHT, passwordApp, postStep } from "../../password/support.js"

const PASSWORD = "copper meadow whistle saturn"
const FULL_HASH = createHash("sha1").update(PASSWORD, "utf8").digest("hex").toUpperCase()

const servers: Server[] = []
const open = new Set<ServerResponse>()
afterEach(async () => {
  for (const res of open) res.destroy()
  open.clear()
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = []
  const server = createServer((req, res) => {
    requests.push(req)
    open.add(res)
    res.on("close", () => open.delete(res))
    handler(req, res)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

function app(url: string) {
  const adapter = MemoryAdapter()
  const mailer = Nodemailer({ server: "smtp://127.0.0.1:1", from: "auth@example.com" })
  const { browser } = passwordApp(adapter, {
    provider: { mailer, hashing: LIGHT, policy: { breached: { url, timeout: 400, onError: "closed" } } },
    extra: { session: { strategy: "jwt", registry: new MemorySessionRegistry() } },
  })
  return { adapter, browser }
}

/** Signs up through the hostile server; the answer, and how long it took. */
async function signUpThrough(url: string) {
  const { adapter, browser } = app(url)
  const email = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`
  const started = Date.now()
  const result = await postStep(browser(), "signup", { email, password: PASSWORD })
  return { ...result, ms: Date.now() - started, stored: await adapter.getUserByEmail!(email) }
}

/**
 * How long a request may take when the range API never finishes answering: the point is that
 * it is not held open (a server that hangs would hold it until the test's own 30 s), not a
 * latency figure: on 2 shared cores under a mutation run, a sign-up whose check timed out
 * after 300 ms took 2.4 s.
 */
const HELD_AT_MOST = 10_000

describe("a range server that answers slowly on purpose", () => {
  it("headers at once, then one byte every 50 ms for ever: refused within the timeout, not held open", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      const drip = setInterval(() => res.write("0"), 50)
      res.on("close", () => clearInterval(drip))
    })
    const result = await signUpThrough(url)
    expect(result.error).toBe("PasswordCheckUnavailable")
    expect(result.ms).toBeLessThan(HELD_AT_MOST)
    expect(result.stored).toBeNull()
  })

  it("a Content-Length of 10 GB and a trickle: the same", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(10 * 1024 ** 3) })
      const drip = setInterval(() => res.write(`${"A".repeat(35)}:1\r\n`), 20)
      res.on("close", () => clearInterval(drip))
    })
    const result = await signUpThrough(url)
    expect(result.error).toBe("PasswordCheckUnavailable")
    expect(result.ms).toBeLessThan(HELD_AT_MOST)
  })
})

describe("a range server that answers too much", () => {
  it("an endless fast stream over a real socket is cut at the size bound, well before the timeout would", async () => {
    const row = Buffer.from(`${"B".repeat(35)}:7\r\n`.repeat(2_000))
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      const pump = () => {
        while (res.write(row)) if (res.destroyed) return
      }
      res.on("drain", pump)
      pump()
    })
    const result = await signUpThrough(url)
    expect(result.error).toBe("PasswordCheckUnavailable")
    expect(result.stored).toBeNull()
  })

  it("a body that breaks off mid-answer (socket destroyed) is a failure, not a verdict of 'not breached'", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "100000" })
      res.write(`${"C".repeat(35)}:1\r\n`)
      setTimeout(() => res.socket?.destroy(), 20)
    })
    const result = await signUpThrough(url)
    expect(result.error).toBe("PasswordCheckUnavailable")
  })
})

describe("a range server that tries to learn more than the prefix", () => {
  it("a redirect elsewhere is not followed: the second server never hears the prefix", async () => {
    const elsewhere = await serve((_req, res) => void res.writeHead(200).end(""))
    const { url, requests } = await serve((req, res) => void res.writeHead(307, { location: `${elsewhere.url}${req.url}?full=please` }).end())
    const result = await signUpThrough(url)
    expect(result.error).toBe("PasswordCheckUnavailable")
    expect(requests).toHaveLength(1)
    expect(elsewhere.requests).toHaveLength(0)
  })

  it("what reaches the server is the 5-character prefix and nothing more of the hash or the password, in the path, query or headers", async () => {
    const { url, requests } = await serve((_req, res) => void res.writeHead(200).end(`${FULL_HASH.slice(5)}:0`))
    const result = await signUpThrough(url)
    expect(result.path).toBe("/auth/password/sent")
    expect(requests).toHaveLength(1)
    const seen = JSON.stringify({ url: requests[0]!.url, headers: requests[0]!.headers })
    expect(requests[0]!.url).toBe(`/range/${FULL_HASH.slice(0, 5)}`)
    expect(seen).not.toContain(FULL_HASH.slice(5, 12))
    expect(seen.toLowerCase()).not.toContain(FULL_HASH.slice(5, 12).toLowerCase())
    expect(seen).not.toContain("copper")
  })
})
