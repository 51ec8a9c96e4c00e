/**
 * The provider in TWO Node processes, each on its own HTTP socket, sharing one PostgreSQL
 * (SqlAdapter with database sessions + sqlOidcProviderStore) or one Redis (RedisAdapter +
 * redisOidcProviderStore), both answering as one public origin (`AUTH_URL`): one issuer.
 * - Both start at once with no keys: each makes its own, and every token verifies against
 *   either instance's JWKS (a kid made by the other is picked up on first sight).
 * - A user signs in and consents at A; the code is redeemed at B; replayed at A it is
 *   `invalid_grant`, and what B issued from it is revoked (userinfo 401 at both).
 * - A refresh token rotated at A and presented again at B ends the whole family.
 * A is served through core's Web `Request`/`Response`, B through its Node path
 * (`handleNodeRequest`): the two lanes share every single-use rule.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresService, redisService } from "@portcullis/adapter-test"
import { connectRedis, deleteKeys } from "@portcullis/adapter-test/redis"
import { postgresBackend } from "@portcullis/adapter-test/sql"
import type { Adapter } from "@portcullis/core/adapters"
import { migrateToLatest, prefixedTables, SqlAdapter } from "@portcullis/sql-adapter"
import { RedisAdapter } from "@portcullis/redis-adapter"
import { migrateOidcProvider } from "@portcullis/oidc-provider/sql"
import { Browser } from "../../../core/test/helpers.js"
import { passwordSignIn, seedUser } from "../../../core/test/password/support.js"
import { postgresGate, redisGate } from "../store-harness.js"
import { RP, SECRET_WEB, authorizeUrl, basic, field } from "../support.js"

const worker = fileURLToPath(new URL("./instance-worker.ts", import.meta.url))
/** The public origin both instances answer as (`AUTH_URL`): requests reach them on their own ports. */
const PUBLIC = "http://op.test"
const ISSUER = `${PUBLIC}/auth/oidc`
const SECRET = "the-two-instances-share-this-secret-of-32+-chars"
type Instance = "a" | "b"

interface Backend {
  options: { backend: "postgres" | "redis"; url: string; prefix: string }
  adapter: Adapter
  cleanup(): Promise<void>
}

async function postgresShared(): Promise<Backend> {
  const prefix = `poe${randomBytes(4).toString("hex")}_`
  const db = postgresBackend().connect()
  const tables = prefixedTables(prefix)
  await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName: `${prefix}migrations` })
  await migrateOidcProvider(db, { tablePrefix: `${prefix}op_` })
  return {
    options: { backend: "postgres", url: postgresService().url, prefix },
    adapter: SqlAdapter(db, { tables, passwords: true }),
    async cleanup() {
      // Every table of this run carries the prefix.
      const { rows } = await (await import("kysely")).sql<{ tablename: string }>`select tablename from pg_tables where tablename like ${`${prefix}%`}`.execute(db)
      for (const { tablename } of rows) await db.schema.dropTable(tablename).ifExists().cascade().execute()
      await db.destroy()
    },
  }
}

async function redisShared(): Promise<Backend> {
  const prefix = `portcullis-test:op-e2e:${randomBytes(4).toString("hex")}:`
  const client = connectRedis()
  await client.connect()
  return {
    options: { backend: "redis", url: redisService().url, prefix },
    adapter: RedisAdapter(client, { prefix: `${prefix}auth:` }),
    async cleanup() {
      await deleteKeys(client, prefix)
      await client.quit()
    },
  }
}

/** Starts one instance; resolves with its own origin once it listens. */
function startInstance(options: Backend["options"] & { lane: "web" | "node" }): Promise<{ child: ChildProcessWithoutNullStreams; origin: string }> {
  const args = JSON.stringify({ ...options, secret: SECRET, clientSecret: SECRET_WEB, redirectUri: RP })
  const child = spawn(process.execPath, ["--no-warnings", "--experimental-transform-types", worker, args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "test", AUTH_URL: `${PUBLIC}/auth` } })
  return new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening (\S+)/.exec(out)
      if (listening) resolve({ child, origin: listening[1]! })
    })
    child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()))
    child.once("exit", (code) => reject(new Error(`instance exited (${code}): ${err}`)))
  })
}

function twoProcessesSpec(label: string, open: () => Promise<Backend>) {
  describe(`two OpenID Provider processes on one ${label}`, () => {
    let backend: Backend
    let instances: ChildProcessWithoutNullStreams[] = []
    const origins: Record<Instance, string> = { a: "", b: "" }

    /** A request of `on`'s own socket, for `PUBLIC`'s path. */
    async function send(on: Instance, request: Request): Promise<Response> {
      const url = new URL(request.url)
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text()
      return fetch(`${origins[on]}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, redirect: "manual" })
    }

    /** A browser whose requests go to A, or to B with `x-instance: b`. */
    const browser = () => new Browser((request) => send(request.headers.get("x-instance") === "b" ? "b" : "a", request), PUBLIC)

    async function call(on: Instance, path: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
      const headers = new Headers(init.headers)
      if (init.form) headers.set("content-type", "application/x-www-form-urlencoded")
      const request = new Request(`${PUBLIC}${path}`, { method: init.form ? "POST" : "GET", headers, body: init.form ? new URLSearchParams(init.form).toString() : undefined })
      const answer = await send(on, request)
      const text = await answer.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {}
      return { status: answer.status, body }
    }

    const token = (on: Instance, form: Record<string, string>) => call(on, "/auth/oidc/token", { form, headers: basic("web", SECRET_WEB) })
    const userinfo = (on: Instance, accessToken: string) => call(on, "/auth/oidc/userinfo", { headers: { authorization: `Bearer ${accessToken}` } })
    const jwks = async (on: Instance) => (await call(on, "/auth/oidc/jwks")).body as JSONWebKeySet

    /** Signs `name` in at A (a password, a database session in the shared adapter). */
    async function signedIn(name: string): Promise<Browser> {
      const email = `${name}-${randomBytes(3).toString("hex")}@example.com`
      await seedUser(backend.adapter, { email, password: "a long and rather unguessable passphrase" })
      const who = browser()
      expect((await passwordSignIn(who, { email, password: "a long and rather unguessable passphrase" })).error).toBeNull()
      return who
    }

    /** Authorizes (and consents when asked) at A: the code. */
    async function codeAtA(who: Browser, params: Record<string, string> = {}): Promise<string> {
      let response = await who.request(authorizeUrl({ scope: "openid email offline_access", ...params }))
      if (response.status === 200) {
        const page = await response.text()
        response = await who.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision: "allow" } })
      }
      const location = new URL(response.headers.get("location") ?? "about:blank")
      const code = location.searchParams.get("code")
      if (!code) throw new Error(`no code: ${response.status} ${location.href}`)
      expect(location.searchParams.get("iss")).toBe(ISSUER)
      return code
    }

    beforeAll(async () => {
      backend = await open()
      // Both at once, on a store with no keys yet.
      // A answers through core's Web Request/Response, B through its Node path (handleNodeRequest):
      // what is single-use holds across the two lanes as across the two processes.
      const started = await Promise.all([startInstance({ ...backend.options, lane: "web" }), startInstance({ ...backend.options, lane: "node" })])
      instances = started.map((s) => s.child)
      origins.a = started[0]!.origin
      origins.b = started[1]!.origin
    }, 60_000)
    afterAll(async () => {
      for (const child of instances) child.stdin.end()
      await Promise.all(instances.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : null)))
      await backend?.cleanup()
    })

    it("two processes on their own sockets, one issuer", async () => {
      expect(new Set(instances.map((c) => c.pid)).size).toBe(2)
      expect(origins.a).not.toBe(origins.b)
      const [a, b] = await Promise.all([call("a", "/auth/oidc/.well-known/openid-configuration"), call("b", "/auth/oidc/.well-known/openid-configuration")])
      expect(a.body.issuer).toBe(ISSUER)
      expect(b.body.issuer).toBe(ISSUER)
    })

    it("started at once with no keys, each instance's tokens verify against the other's JWKS", async () => {
      // Both make their keys at the same moment.
      await Promise.all([jwks("a"), jwks("b"), jwks("a"), jwks("b")])
      const who = await signedIn("kim")
      const atA = (await token("a", { grant_type: "authorization_code", code: await codeAtA(who), redirect_uri: RP })).body
      const atB = (await token("b", { grant_type: "authorization_code", code: await codeAtA(who), redirect_uri: RP })).body
      expect(atA.access_token && atB.access_token).toBeTruthy()
      // A kid the verifying instance has not seen is read from the store on first sight.
      expect((await userinfo("b", atA.access_token)).status).toBe(200)
      expect((await userinfo("a", atB.access_token)).status).toBe(200)
      const signed = [atA.access_token, atA.id_token, atB.access_token, atB.id_token] as string[]
      const kids = new Set(signed.map((t) => decodeProtectedHeader(t).kid))
      // Each JWKS publishes every kid that signed — once its short re-read after making a key has run (polled, not slept).
      for (const on of ["a", "b"] as const) {
        let published: JSONWebKeySet = { keys: [] }
        for (let tries = 0; tries < 100; tries++) {
          published = await jwks(on)
          if ([...kids].every((kid) => published.keys.some((k) => k.kid === kid))) break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        for (const jwt of signed) await jwtVerify(jwt, createLocalJWKSet(published), { issuer: ISSUER })
      }
    }, 60_000)

    it("a code redeemed at B and replayed at A: invalid_grant, and B's tokens are revoked at both", async () => {
      const who = await signedIn("ada")
      const code = await codeAtA(who)
      const form = { grant_type: "authorization_code", code, redirect_uri: RP }
      const issued = await token("b", form)
      expect(issued.status).toBe(200)
      expect((await userinfo("a", issued.body.access_token)).status).toBe(200)
      const replayed = await token("a", form)
      expect(replayed.status).toBe(400)
      expect(replayed.body.error).toBe("invalid_grant")
      expect((await userinfo("a", issued.body.access_token)).status).toBe(401)
      expect((await userinfo("b", issued.body.access_token)).status).toBe(401)
      expect((await token("b", { grant_type: "refresh_token", refresh_token: issued.body.refresh_token })).body.error).toBe("invalid_grant")
    }, 60_000)

    it("a refresh token rotated at A and presented again at B ends the whole family", async () => {
      const who = await signedIn("bob")
      const first = (await token("a", { grant_type: "authorization_code", code: await codeAtA(who), redirect_uri: RP })).body
      const rotated = await token("a", { grant_type: "refresh_token", refresh_token: first.refresh_token })
      expect(rotated.status).toBe(200)
      expect(rotated.body.refresh_token).not.toBe(first.refresh_token)
      const reused = await token("b", { grant_type: "refresh_token", refresh_token: first.refresh_token })
      expect(reused.body.error).toBe("invalid_grant")
      // The family is gone on both instances: the newest refresh token and its access token too.
      expect((await token("a", { grant_type: "refresh_token", refresh_token: rotated.body.refresh_token })).body.error).toBe("invalid_grant")
      expect((await userinfo("b", rotated.body.access_token)).status).toBe(401)
      expect((await userinfo("a", rotated.body.access_token)).status).toBe(401)
    }, 60_000)
  })
}

postgresGate.describe("PostgreSQL", () => twoProcessesSpec("PostgreSQL", postgresShared))
redisGate.describe("Redis", () => twoProcessesSpec("Redis", redisShared))
