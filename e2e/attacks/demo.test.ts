import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { connect, createServer as createNetServer } from "node:net"
import { networkInterfaces, tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exchange } from "../../packages/core/test/raw-http.js"
import { freePort, startExample } from "../support.js"

/**
 * Issue 30, attacker's pass on the demo as `npm start` runs it: what it tells you when it is
 * opened to the network, who can reach its mail catcher and OpenID provider (which print
 * sign-in links and accept any password for `demo`), where that provider will send a code,
 * and what a Host header that is not the demo's own does.
 */

const entry = join(import.meta.dirname, "..", "..", "examples", "express", "src", "server.ts")

/** This machine's addresses that are not loopback (the ones another machine would use). */
const outward = Object.values(networkInterfaces())
  .flat()
  .filter((a) => a && !a.internal && a.family === "IPv4")
  .map((a) => a!.address)

/** "refused" or "open": whether a TCP connection to host:port is accepted. */
function tcp(host: string, port: number): Promise<"refused" | "open"> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host)
    socket.setTimeout(3_000, () => {
      socket.destroy()
      reject(new Error(`${host}:${port} neither accepted nor refused within 3 s`))
    })
    socket.on("connect", () => {
      socket.destroy()
      resolve("open")
    })
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNREFUSED" ? resolve("refused") : reject(error)))
  })
}

/** Waits (10 s at most) for the demo to print a line matching `pattern`: "listening on" comes first. */
async function printed(output: string[], pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!pattern.test(output.join("")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** The ports of the demo's peers, from the lines it prints. */
function peers(output: string): { smtp: number; oidc: string } {
  const smtp = /mail catcher at smtp:\/\/127\.0\.0\.1:(\d+)/.exec(output)
  const oidc = /provider at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
  if (!smtp || !oidc) throw new Error(`the demo did not print its peers:\n${output}`)
  return { smtp: Number(smtp[1]), oidc: oidc[1]! }
}

describe("the demo on its default host (127.0.0.1)", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  beforeAll(async () => {
    demo = await startExample(entry, { HOST: "", AUTH_URL: "" })
    await printed(demo.output, /mail catcher at/)
  }, 60_000)
  afterAll(() => demo?.stop())

  it("prints no network warning: it is on loopback", () => {
    expect(demo.output.join("")).not.toMatch(/warning: HOST/i)
  })

  it.skipIf(outward.length === 0)("the app, the mail catcher and the OpenID provider refuse connections on the machine's other addresses", async () => {
    const app = Number(new URL(demo.url).port)
    const { smtp, oidc } = peers(demo.output.join(""))
    for (const address of outward) {
      expect(await tcp(address, app), `app on ${address}`).toBe("refused")
      expect(await tcp(address, smtp), `mail catcher on ${address}`).toBe("refused")
      expect(await tcp(address, Number(new URL(oidc).port)), `OpenID provider on ${address}`).toBe("refused")
    }
  })

  // The demo trusts proxy headers from loopback (`trust proxy: "loopback"`, for a proxy in
  // front of it), and this client is on loopback: the forwarded host must still not be
  // believed, since no trustHost is set.
  it("a forwarded Host or protocol from loopback shapes no link and no redirect", async () => {
    const port = new URL(demo.url).port
    for (const path of ["/", "/auth/signin", "/auth/csrf", "/private", "/auth/providers"]) {
      const answer = await exchange(port, "GET", path, { host: `localhost:${port}`, "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", forwarded: "host=evil.example;proto=https" })
      expect([200, 302, 400], `${path} ${answer.body.slice(0, 200)}`).toContain(answer.status)
      expect(answer.headers.location ?? "", path).not.toContain("evil.example")
      // Express believes the forwarded origin (loopback is a trusted proxy), and core then
      // refuses it: 400, whose JSON message names the refused origin. Acceptable: plain
      // JSON or text, never a page that would render it, and no link or redirect built on it.
      if (answer.body.includes("evil.example")) {
        expect(answer.status, path).toBe(400)
        expect(answer.headers["content-type"], path).toMatch(/^(application\/json|text\/plain)/)
        expect(answer.body, path).not.toMatch(/evil\.example\//)
      }
    }
  })

  describe("the demo's OpenID provider sends codes only to the demo's own callback", () => {
    const authorize = (oidc: string, redirect: string, client = "portcullis-demo") => {
      const url = new URL("/auth", oidc)
      url.search = new URLSearchParams({ client_id: client, redirect_uri: redirect, response_type: "code", scope: "openid", state: "s", nonce: "n" }).toString()
      return exchange(url.port, "GET", url.pathname + url.search, { host: url.host })
    }

    it("accepts the demo's callback at either loopback name (the control)", async () => {
      const { oidc } = peers(demo.output.join(""))
      const port = new URL(demo.url).port
      for (const name of ["localhost", "127.0.0.1"]) {
        const answer = await authorize(oidc, `http://${name}:${port}/auth/callback/demo-oidc`)
        expect(answer.status, answer.body).toBe(303)
        expect(answer.headers.location).toMatch(/^\/interaction\//)
      }
    })

    for (const [what, redirect] of [
      ["another host", "http://evil.example/auth/callback/demo-oidc"],
      ["another port on loopback", "http://127.0.0.1:1/auth/callback/demo-oidc"],
      ["another path", "/auth/callback/other"],
      ["the callback with a suffix", "/auth/callback/demo-oidc/../../steal"],
      ["the callback with a query", "/auth/callback/demo-oidc?next=http://evil.example"],
    ] as const) {
      it(`refuses ${what}, with an error page and no redirect`, async () => {
        const { oidc } = peers(demo.output.join(""))
        const redirectUri = redirect.startsWith("/") ? `http://localhost:${new URL(demo.url).port}${redirect}` : redirect
        const answer = await authorize(oidc, redirectUri)
        expect(answer.status, answer.body).toBe(400)
        expect(answer.headers.location).toBeUndefined()
        expect(answer.body).toContain("redirect_uri")
      })
    }

    it("knows no other client and registers none (no dynamic registration)", async () => {
      const { oidc } = peers(demo.output.join(""))
      const unknown = await authorize(oidc, "http://evil.example/cb", "evil-client")
      expect(unknown.status).toBe(400)
      expect(unknown.headers.location).toBeUndefined()
      const url = new URL("/reg", oidc)
      const registration = await exchange(url.port, "POST", "/reg", { host: url.host, "content-type": "application/json" }, JSON.stringify({ redirect_uris: ["http://evil.example/cb"] }))
      expect(registration.status).toBe(404)
    })
  })
})

describe("the demo with HOST=0.0.0.0 and AUTH_URL", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let port: number
  beforeAll(async () => {
    port = await freePort()
    demo = await startExample(entry, { HOST: "0.0.0.0", PORT: String(port), AUTH_URL: `http://localhost:${port}` })
    await printed(demo.output, /mail catcher at/)
  }, 60_000)
  afterAll(() => demo?.stop())

  it("warns that it is reachable from other machines, with a demo account and sign-in links in its output", async () => {
    const output = demo.output.join("")
    expect(output).toMatch(/warning: HOST=0\.0\.0\.0/i)
    expect(output).toContain("demo / portcullis")
    expect(output).toContain("sign-in links")
  })

  it.skipIf(outward.length === 0)("keeps the mail catcher and the OpenID provider on loopback all the same", async () => {
    const { smtp, oidc } = peers(demo.output.join(""))
    for (const address of outward) {
      expect(await tcp(address, smtp)).toBe("refused")
      expect(await tcp(address, Number(new URL(oidc).port))).toBe("refused")
    }
  })

  // Host headers the demo is not served at: AUTH_URL decides every link and redirect, so a
  // forged Host is either refused or ignored — never reflected.
  for (const host of ["evil.example", `127.0.0.1:${0}`, "localhost:1"]) {
    it(`a request with Host ${host} shapes no link and no redirect`, async () => {
      const h = host === "127.0.0.1:0" ? `127.0.0.1:${port}` : host
      for (const path of ["/", "/auth/signin", "/auth/csrf", "/private", "/auth/providers"]) {
        const answer = await exchange(port, "GET", path, { host: h })
        expect([200, 302, 400], `${path} ${answer.body.slice(0, 200)}`).toContain(answer.status)
        expect(answer.headers.location ?? "", path).not.toContain(h)
        expect(answer.body, path).not.toContain(`//${h}`)
        expect(answer.body, path).not.toMatch(/\bat .+:\d+:\d+\)?/)
      }
    })
  }
})

describe("the demo's start-up failures are one line, never a stack", () => {
  /** Runs the demo to its exit; its output and exit code. */
  function run(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [entry], {
        env: { ...process.env, AUTH_URL: "", DEMO_DATA_DIR: mkdtempSync(join(tmpdir(), "portcullis-demo-fail-")), ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let output = ""
      child.stdout.on("data", (c: Buffer) => (output += c.toString()))
      child.stderr.on("data", (c: Buffer) => (output += c.toString()))
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      child.on("exit", (code) => {
        clearTimeout(timer)
        resolve({ code, output })
      })
    })
  }

  const cases: [string, Record<string, string>, RegExp][] = [
    ["PORT that is not a number", { PORT: "abc" }, /^The demo cannot start: PORT=abc is not a port number/m],
    ["PORT out of range", { PORT: "70000" }, /^The demo cannot start: PORT=70000 is not a port number/m],
    ["HOST that does not resolve", { PORT: "0", HOST: "nonexistent.invalid" }, /^The demo cannot start: HOST=nonexistent\.invalid is not an address of this machine/m],
    ["HOST that is not this machine's", { PORT: "0", HOST: "192.0.2.254" }, /^The demo cannot start: HOST=192\.0\.2\.254 is not an address of this machine/m],
    // A common slip: it ran, said "listening on null", and no sign-in worked.
    ["AUTH_URL without a scheme", { PORT: "0", AUTH_URL: "localhost:3000" }, /^The demo cannot start: AUTH_URL=localhost:3000 is not an http\(s\) URL/m],
    ["AUTH_URL that is not a URL", { PORT: "0", AUTH_URL: "not a url" }, /^The demo cannot start: AUTH_URL=not a url is not an http\(s\) URL/m],
    ["AUTH_URL of another scheme", { PORT: "0", AUTH_URL: "ftp://localhost:3000" }, /^The demo cannot start: AUTH_URL=ftp:\/\/localhost:3000 is not an http\(s\) URL/m],
  ]
  for (const [what, env, expected] of cases) {
    it(what, async () => {
      const { code, output } = await run(env)
      expect(code, output).toBe(1)
      expect(output).toMatch(expected)
      expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/)
    }, 40_000)
  }

  it("a port already in use (the usual one: another demo still running)", async () => {
    const taken = createNetServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const { code, output } = await run({ PORT: String(port), HOST: "127.0.0.1" })
      expect(code, output).toBe(1)
      expect(output).toMatch(new RegExp(`^The demo cannot start: 127\\.0\\.0\\.1:${port} is in use .*PORT=3001 npm start$`, "m"))
      expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  }, 40_000)
})
