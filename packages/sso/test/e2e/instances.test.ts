/**
 * Two app processes behind one origin (a load balancer sending each request where the test
 * says), sharing one PostgreSQL — SqlAdapter, sqlSsoStore, sqlOrganizationStore — or one
 * Redis: an AuthnRequest started on A completes on B (the request is in the shared store, not
 * in A's memory), and a SAML response accepted once is refused when replayed to the other
 * instance, even when 25 + 25 copies arrive at both at once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { hashPassword } from "@portcullis/core/password"
import { migrateToLatest, prefixedTables, SqlAdapter } from "@portcullis/sql-adapter"
import { RedisAdapter } from "@portcullis/redis-adapter"
import { migrateSso } from "@portcullis/sso/sql"
import { migrateOrganizations } from "@portcullis/organizations/sql"
import { Browser } from "../../../core/test/helpers.js"
import { LIGHT, passwordSignIn } from "../../../core/test/password/support.js"
import { startDnsServer, type DnsServer } from "../fixtures/dns-server.js"
import { loginThroughIdp, simpleSamlPhpAvailable, startSimpleSamlPhp, type PostedForm, type SimpleSamlPhpIdp } from "../fixtures/simplesamlphp.js"
import { connectRedis, deleteKeys, redis, redisGate } from "../redis-harness.js"
import { postgres, postgresBackend, postgresGate } from "../sql-harness.js"
import { spCertificateFromMetadata, usersOf } from "./saml.js"

const worker = fileURLToPath(new URL("./instance-worker.ts", import.meta.url))
const gate = simpleSamlPhpAvailable()
type Instance = "a" | "b"

/** What a browser's navigation sends: pages, not JSON. */
const HTML = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"

/** Starts one instance; resolves with its origin once it listens. */
function startInstance(options: Record<string, unknown>): Promise<{ child: ChildProcessWithoutNullStreams; origin: string }> {
  const child = spawn(process.execPath, ["--no-warnings", "--experimental-transform-types", worker, JSON.stringify(options)], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "test" } })
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

/** One public origin in front of both: `x-instance: b` sends a request to B, anything else to A. */
async function balancer(targets: Record<Instance, string>): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const target = new URL(targets[req.headers["x-instance"] === "b" ? "b" : "a"])
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    forwarded.on("error", () => res.writeHead(502).end())
    req.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

interface Backend {
  options: { backend: "postgres" | "redis"; url: string; prefix: string }
  /** The shared adapter, for seeding the owner and reading users. */
  adapter: Adapter
  cleanup(): Promise<void>
}

async function postgresBackendFor(): Promise<Backend> {
  const prefix = `pce${randomBytes(4).toString("hex")}_`
  const db = postgresBackend().connect()
  const tables = prefixedTables(prefix)
  await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName: `${prefix}migrations` })
  await migrateSso(db, { tablePrefix: `${prefix}sso_` })
  await migrateOrganizations(db, { tablePrefix: `${prefix}org_` })
  return {
    options: { backend: "postgres", url: postgres.url, prefix },
    adapter: SqlAdapter(db, { tables, passwords: true }),
    async cleanup() {
      // Every table of this run carries the prefix.
      const { rows } = await (await import("kysely")).sql<{ tablename: string }>`select tablename from pg_tables where tablename like ${`${prefix}%`}`.execute(db)
      for (const { tablename } of rows) await db.schema.dropTable(tablename).ifExists().cascade().execute()
      await db.destroy()
    },
  }
}

async function redisBackendFor(): Promise<Backend> {
  const prefix = `portcullis-test:sso-e2e:${randomBytes(4).toString("hex")}:`
  const client = connectRedis()
  await client.connect()
  return {
    options: { backend: "redis", url: redis.url, prefix },
    adapter: RedisAdapter(client, { prefix: `${prefix}auth:` }),
    async cleanup() {
      await deleteKeys(client, prefix)
      await client.quit()
    },
  }
}

function instancesSpec(label: string, open: () => Promise<Backend>) {
  describe(`two instances on one ${label}`, () => {
    let backend: Backend
    let dns: DnsServer
    let idp: SimpleSamlPhpIdp
    let instances: ChildProcessWithoutNullStreams[] = []
    let front: { origin: string; server: Server }
    let connectionId = ""
    let organizationId = ""

    const browser = () => new Browser((request) => fetch(request, { redirect: "manual" }), front.origin)

    /** A JSON call of the owner's settings page, on A (their step-up is fresh there). */
    async function call(owner: Browser, path: string, body: unknown): Promise<any> {
      const response = await owner.request(`/auth/${path}`, { json: body, headers: { "x-csrf-token": await owner.csrfToken() } })
      const answer = await response.json()
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`)
      return answer
    }

    beforeAll(async () => {
      backend = await open()
      dns = await startDnsServer()
      idp = await startSimpleSamlPhp({ sp: { entityId: "urn:placeholder", acsUrl: "http://127.0.0.1:9/acs" }, users: usersOf("acme.test") })
      const started = await Promise.all(["a", "b"].map((instance) => startInstance({ ...backend.options, dns: dns.servers, port: 0, instance })))
      instances = started.map((s) => s.child)
      front = await balancer({ a: started[0]!.origin, b: started[1]!.origin })

      // The owner, seeded in the shared database, signs in with a password and sets SSO up over HTTP.
      const owner = await backend.adapter.createUser!({ id: crypto.randomUUID(), email: "olivia@owner.test", emailVerified: new Date(), name: "Olivia" } as never)
      await backend.adapter.setUserPassword!(owner.id, await hashPassword("the owner's long passphrase", LIGHT))
      const ownerBrowser = browser()
      expect((await passwordSignIn(ownerBrowser, { email: "olivia@owner.test", password: "the owner's long passphrase" })).error).toBeNull()
      organizationId = (await call(ownerBrowser, "organizations", { name: "Acme" })).organization.id
      const claimed = await call(ownerBrowser, `sso/organizations/${organizationId}/domains`, { domain: "acme.test" })
      dns.set(claimed.record.name, [claimed.record.value])
      expect((await call(ownerBrowser, `sso/organizations/${organizationId}/domains/acme.test/verify`, {})).verified).toBe(true)
      const connection = await call(ownerBrowser, `sso/organizations/${organizationId}/connections`, {
        kind: "saml",
        name: "Acme SimpleSAMLphp",
        saml: { metadataUrl: idp.metadataUrl },
        roleRules: [{ claim: "groups", value: "admins", role: "admin" }],
      })
      connectionId = connection.id
      await idp.setServiceProviders({ entityId: connection.saml.spEntityId, acsUrl: connection.saml.acsUrl, certificate: await spCertificateFromMetadata(connection.saml.spMetadataUrl) })
    }, 120_000)
    afterAll(async () => {
      for (const child of instances) child.stdin.end()
      await Promise.all(instances.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : null)))
      front?.server.closeAllConnections()
      front?.server.close()
      await idp?.stop()
      await dns?.stop()
      await backend?.cleanup()
    })

    /** Starts a sign-in at `on` for `username`, and signs in at the IdP: the form its page would post back. */
    async function responseFromIdp(started: Browser, on: Instance, username: string): Promise<PostedForm> {
      const csrfToken = await started.csrfToken()
      const start = await started.request("/auth/sso/start", { form: { csrfToken, email: `${username}@acme.test`, callbackUrl: `${front.origin}/dashboard` }, headers: { "x-instance": on, accept: HTML } })
      expect(start.status).toBe(302)
      return loginThroughIdp(start.headers.get("location")!, username, `${username}-password`)
    }

    /** The IdP's post to the ACS of `on`, then — as the browser does — its redirect to the same-site finish step there. */
    async function postToAcs(to: Browser, on: Instance, posted: PostedForm): Promise<Response> {
      const answered = await to.request(new URL(posted.action).pathname, { form: { SAMLResponse: posted.SAMLResponse, ...(posted.RelayState !== null && { RelayState: posted.RelayState }) }, headers: { "x-instance": on, accept: HTML } })
      const next = answered.status === 302 ? new URL(answered.headers.get("location")!, front.origin) : null
      return next?.pathname.endsWith("/finish") ? to.request(next.pathname + next.search, { headers: { "x-instance": on, accept: HTML } }) : answered
    }

    async function sessionOn(who: Browser, on: Instance): Promise<any> {
      return (await who.request("/auth/session", { headers: { "x-instance": on } })).json()
    }

    it("the balancer reaches two processes", async () => {
      const pages = await Promise.all((["a", "b"] as const).map(async (on) => (await browser().request("/", { headers: { "x-instance": on } })).text()))
      expect(pages.map((html) => /<p id="instance">(\w*)<\/p>/.exec(html)?.[1])).toEqual(["a", "b"])
      expect(new Set(instances.map((child) => child.pid)).size).toBe(2)
    })

    it("an AuthnRequest started on A completes on B, and the session holds on both", async () => {
      const alice = browser()
      const posted = await responseFromIdp(alice, "a", "alice")
      const answer = await postToAcs(alice, "b", posted)
      expect(answer.status).toBe(302)
      expect(answer.headers.get("location")).toBe(`${front.origin}/dashboard`)
      for (const on of ["a", "b"] as const) {
        const session = await sessionOn(alice, on)
        expect(session.user.email).toBe("alice@acme.test")
        expect(session.organizations.active).toMatchObject({ id: organizationId, role: "admin" })
      }
    }, 60_000)

    it("a response accepted on A is refused when replayed to B", async () => {
      const bob = browser()
      const posted = await responseFromIdp(bob, "a", "bob")
      expect((await postToAcs(bob, "a", posted)).status).toBe(302)
      expect((await sessionOn(bob, "b")).organizations.active).toMatchObject({ id: organizationId, role: "member" })
      const attacker = browser()
      const replayed = await postToAcs(attacker, "b", posted)
      expect(replayed.status).toBeGreaterThanOrEqual(400)
      expect(replayed.status).toBeLessThan(500)
      expect(attacker.jar.has("authjs.session-token")).toBe(false)
      expect(await sessionOn(attacker, "a")).toBeNull()
    }, 60_000)

    it("of 25 + 25 copies of one response posted to A and B at once, exactly one signs in", async () => {
      const started = browser()
      const posted = await responseFromIdp(started, "b", "erin")
      // Copies of the browser that started it (its binding among its cookies): only that browser may finish.
      const browsers = Array.from({ length: 50 }, () => {
        const copy = browser()
        for (const [name, cookie] of started.jar) copy.jar.set(name, cookie)
        return copy
      })
      const answers = await Promise.all(browsers.map((b, i) => postToAcs(b, i % 2 ? "b" : "a", posted)))
      const statuses = answers.map((a) => a.status)
      expect(statuses.filter((s) => s === 302)).toHaveLength(1)
      expect(statuses.filter((s) => s >= 400 && s < 500)).toHaveLength(49)
      expect(browsers.filter((b) => b.jar.has("authjs.session-token"))).toHaveLength(1)
      const erin = await backend.adapter.getUserByEmail!("erin@acme.test")
      expect(erin).not.toBeNull()
      expect(connectionId).not.toBe("")
    }, 120_000)
  })
}

gate.describe("SSO across instances", () => {
  postgresGate.describe("PostgreSQL", () => {
    instancesSpec("PostgreSQL", postgresBackendFor)
  })
  redisGate.describe("Redis", () => {
    instancesSpec("Redis", redisBackendFor)
  })
})
