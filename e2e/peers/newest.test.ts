/**
 * Issue 30: the peer ranges hold at their newest majors. The registry's `latest` of each
 * driver and framework Portcullis peers on is read at run time, so CI notices a new major
 * the day it ships, not when a user reports it:
 *
 * - every `latest` is inside the range our package declares (or the range is wrong);
 * - Express, Nodemailer, pg and ioredis at `latest` are installed beside the packed
 *   Portcullis tarballs, outside the workspace, and an email sign-in runs end to end on
 *   them: Nodemailer sends the link over real SMTP, the user, token and session are kept in
 *   PostgreSQL through pg, and again in Redis through ioredis;
 * - Next.js, too heavy to install twice, is built by `e2e/migration/next.test.ts` from a
 *   fixture pinned to an exact version: that pin must be on the newest major.
 */
import { randomBytes } from "node:crypto"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import semver from "semver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresService, redisAvailable, redisService, serviceAvailable } from "@portcullis/adapter-test"
import { startDemoSmtp, type DemoSmtp } from "@portcullis/example-kit/smtp"
import { freePort } from "../support.js"
import { npmInstall, packPortcullis, printServerOutputOnFailure, root, run, startServer, type AppServer } from "../migration/migrate.js"

/** Each peer, the package whose manifest declares its range, and how this suite tests it. */
const peers = [
  { name: "express", declaredBy: "packages/express" },
  { name: "nodemailer", declaredBy: "packages/core" },
  { name: "pg", declaredBy: "packages/sql-adapter" },
  { name: "ioredis", declaredBy: "packages/redis-adapter" },
  { name: "next", declaredBy: "packages/next" },
] as const
const installed = ["express", "nodemailer", "pg", "ioredis"] as const

const manifest = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }

const postgres = postgresService()
const pgGate = await serviceAvailable(postgres, async () => {
  const client = new pg.Client(postgres.url)
  await client.connect()
  await client.end()
})
const redisGate = await redisAvailable()

describe("the newest majors of the peers", () => {
  const latest = new Map<string, string>()
  let dir: string | undefined

  beforeAll(async () => {
    for (const { name } of peers) latest.set(name, (await run("npm", ["view", name, "version"], { cwd: root, timeout: 60_000 })).trim())
  }, 120_000)
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it.each(peers)("$name's latest is inside the range $declaredBy declares", ({ name, declaredBy }) => {
    const range = manifest(join(root, declaredBy, "package.json")).peerDependencies?.[name]
    expect(range, `${declaredBy} declares no peer ${name}`).toBeDefined()
    expect(semver.satisfies(latest.get(name)!, range!), `${name}@${latest.get(name)} is outside ${declaredBy}'s ${range}: test it, then widen the range`).toBe(true)
  })

  it("the Next.js app test builds on Next's newest major", () => {
    const pinned = manifest(join(root, "e2e/migration/fixtures/next/package.json")).dependencies!.next!
    expect(semver.major(pinned), `e2e/migration/fixtures/next pins next@${pinned}, latest is ${latest.get("next")}`).toBe(semver.major(latest.get("next")!))
  })

  describe("an Express app with email sign-in, on the newest drivers", () => {
    let smtp: DemoSmtp
    const servers: AppServer[] = []
    printServerOutputOnFailure(() => servers.at(-1))

    beforeAll(async () => {
      const tarballs = await packPortcullis()
      dir = mkdtempSync(join(tmpdir(), "portcullis-newest-peers-"))
      cpSync(join(import.meta.dirname, "app"), dir, { recursive: true })
      const portcullis = ["@portcullis/core", "@portcullis/express", "@portcullis/sql-adapter", "@portcullis/redis-adapter"]
      const dependencies = Object.fromEntries([
        ...portcullis.map((name) => [name, `file:${tarballs[name]}`]),
        ...installed.map((name) => [name, latest.get(name)!]),
      ])
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "newest-peers-app", private: true, type: "module", dependencies }, null, 2))
      await npmInstall(dir)
      smtp = await startDemoSmtp({ port: 0, log: () => {} })
    }, 600_000)

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()))
      await smtp?.close()
    })

    it.each(installed)("installs %s at its latest version", (name) => {
      expect(manifest(join(dir!, "node_modules", name, "package.json")).version).toBe(latest.get(name))
    })

    /** Starts the app on a store and signs in by email, as a browser would (cookies kept by hand). */
    async function signInByEmail(env: Record<string, string>): Promise<{ email: string; session: { user?: { email?: string } } | null }> {
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      const server = await startServer(process.execPath, ["server.ts"], {
        cwd: dir!,
        ready: /listening on http/,
        url,
        env: { ...env, PORT: String(port), SMTP_URL: smtp.url, AUTH_SECRET: randomBytes(32).toString("hex"), AUTH_URL: `${url}/auth` },
      })
      servers.push(server)
      const jar = new Map<string, string>()
      const send = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(new URL(path, url), { ...init, redirect: "manual", headers: { ...init.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } })
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";")
          const at = pair!.indexOf("=")
          jar.set(pair!.slice(0, at), pair!.slice(at + 1))
        }
        return response
      }

      const email = `newest-${randomBytes(4).toString("hex")}@example.com`
      const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string }
      const signIn = await send("/auth/signin/nodemailer", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
        body: new URLSearchParams({ email, csrfToken, callbackUrl: `${url}/me` }),
      })
      expect(signIn.status).toBe(302)
      expect(signIn.headers.get("location")).toContain("/auth/verify-request")

      let link: string | undefined
      for (let tries = 0; !link && tries < 100; tries++) {
        link = smtp.lastLink(email)
        if (!link) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(link, "no sign-in email arrived").toBeDefined()
      // The link opens the confirmation page (link scanners never sign in); its button posts.
      const confirm = await send(link!)
      expect(confirm.status).toBe(200)
      const html = await confirm.text()
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, "&") ?? ""
      const action = /action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&")
      expect(action).toBe(`${url}/auth/callback/nodemailer`)
      const callback = await send(action!, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
        body: new URLSearchParams({ csrfToken: field("csrfToken"), callbackUrl: field("callbackUrl"), token: field("token"), email: field("email") }),
      })
      expect(callback.status).toBe(302)
      expect(callback.headers.get("location")).toBe(`${url}/me`)
      const session = (await (await send("/me")).json()) as { user?: { email?: string } } | null
      return { email, session }
    }

    pgGate.describe("on PostgreSQL through pg", () => {
      const database = `newest_peers_${randomBytes(4).toString("hex")}`
      beforeAll(async () => {
        const admin = new pg.Client(postgres.url)
        await admin.connect()
        await admin.query(`CREATE DATABASE ${database}`)
        await admin.end()
      })
      afterAll(async () => {
        await Promise.all(servers.map((server) => server.stop()))
        const admin = new pg.Client(postgres.url)
        await admin.connect()
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
        await admin.end()
      })

      it("signs in by an emailed link and keeps the session in the database", async () => {
        const target = new URL(postgres.url)
        target.pathname = `/${database}`
        const { email, session } = await signInByEmail({ STORE: "postgres", DATABASE_URL: target.href })
        expect(session?.user?.email).toBe(email)
        const db = new pg.Client(target.href)
        await db.connect()
        try {
          const { rows } = await db.query(`SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s."userId" WHERE u.email = $1`, [email])
          expect(rows[0].n).toBe(1)
        } finally {
          await db.end()
        }
      }, 120_000)
    })

    redisGate.describe("on Redis through ioredis", () => {
      it("signs in by an emailed link and keeps the session in Redis", async () => {
        const prefix = `newest-peers-${randomBytes(4).toString("hex")}:`
        const { email, session } = await signInByEmail({ STORE: "redis", REDIS_URL: redisService().url, REDIS_PREFIX: prefix })
        expect(session?.user?.email).toBe(email)
      }, 120_000)
    })
  })
})
