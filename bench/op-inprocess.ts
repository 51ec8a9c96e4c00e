/**
 * `node bench/op-inprocess.ts [code|refresh|userinfo]…`: CPU µs per `Auth()` call of the OpenID
 * Provider rows without HTTP (the configuration of `op-server.ts`), and the event loop's busy µs
 * per call (signatures run on the thread pool: the process's CPU no longer shows what the loop,
 * which bounds a server's throughput, spends), for profiling what lies between the web floor
 * and an answer. Run it under `--cpu-prof` to see where the time goes.
 * Knobs (env): OPIN_CALLS (measured calls per case, default 5,000), OPIN_REPEAT (default 3).
 */
import { createHash, randomBytes } from "node:crypto"
import { performance } from "node:perf_hooks"
import { Auth } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { oidcProvider } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { responseParts } from "./adapter.ts"
import { basicAuth } from "./op-server.ts"
import { OP_CLIENT, OP_SCOPE, OP_VERIFIER } from "./op-shared.ts"
import { BENCH_USER, SECRET } from "./shared.ts"

const CALLS = Number(process.env.OPIN_CALLS ?? 5_000)
const REPEAT = Number(process.env.OPIN_REPEAT ?? 3)
const CONCURRENCY = 10
const HOST = "127.0.0.1:3000"
const challenge = createHash("sha256").update(OP_VERIFIER).digest("base64url")

const adapter = MemoryAdapter()
await adapter.createUser!({ ...BENCH_USER, emailVerified: new Date() })
const store = memoryOidcProviderStore()
const config = {
  secret: SECRET,
  trustHost: true,
  adapter,
  session: { strategy: "jwt" as const },
  rateLimit: false as const,
  providers: [],
  extensions: [oidcProvider({ store, clients: [{ clientId: OP_CLIENT.id, clientSecret: OP_CLIENT.secret, redirectUris: [OP_CLIENT.redirectUri], name: "Bench" }], signingAlgs: ["ES256", "RS256"], rateLimit: false })],
}

async function mint(): Promise<string> {
  const grantId = randomBytes(16).toString("base64url")
  const now = new Date()
  const authTime = Math.floor(now.getTime() / 1000)
  await store.createGrant({ id: grantId, clientId: OP_CLIENT.id, userId: BENCH_USER.id, scope: OP_SCOPE, resources: [], authTime, createdAt: now, expiresAt: new Date(now.getTime() + 90 * 86400_000) })
  const code = randomBytes(32).toString("base64url")
  await store.saveCode({ codeHash: createHash("sha256").update(code).digest("hex"), grantId, clientId: OP_CLIENT.id, userId: BENCH_USER.id, redirectUri: OP_CLIENT.redirectUri, scope: OP_SCOPE, resources: [], codeChallenge: challenge, authTime, expiresAt: new Date(now.getTime() + 600_000) })
  return code
}

/** As `bench/adapter.ts` `toWebRequest`, from the raw headers autocannon sends. */
function tokenRequest(body: string): Request {
  const raw = ["host", HOST, "connection", "keep-alive", "content-type", "application/x-www-form-urlencoded", "authorization", basicAuth(), "content-length", String(body.length)]
  const headers = new Headers()
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return new Request(`http://${HOST}/auth/oidc/token`, { method: "POST", headers, body: Buffer.from(body) })
}
function userinfoRequest(token: string): Request {
  const raw = ["host", HOST, "connection", "keep-alive", "authorization", `Bearer ${token}`]
  const headers = new Headers()
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return new Request(`http://${HOST}/auth/oidc/userinfo`, { method: "GET", headers })
}
const codeBody = (code: string) => `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(OP_CLIENT.redirectUri)}&code_verifier=${OP_VERIFIER}`

async function call(request: Request): Promise<Record<string, unknown>> {
  const response = await Auth(request, config)
  const { body } = await responseParts(response)
  const answer = JSON.parse(body ? body.toString() : "null") as Record<string, unknown>
  if (response.status !== 200) throw new Error(`${request.url} answered ${response.status}: ${JSON.stringify(answer)}`)
  return answer
}

async function measure(name: string): Promise<{ cpu: number; loop: number }> {
  let left = CALLS
  let work: () => Promise<void>
  if (name === "code") {
    const codes: string[] = []
    for (let i = 0; i < CALLS; i++) codes.push(await mint())
    work = async () => { await call(tokenRequest(codeBody(codes.pop()!))) }
  } else if (name === "refresh") {
    const live: string[] = []
    for (let i = 0; i < CONCURRENCY; i++) live.push((await call(tokenRequest(codeBody(await mint())))).refresh_token as string)
    work = async () => {
      const answer = await call(tokenRequest(`grant_type=refresh_token&refresh_token=${encodeURIComponent(live.shift()!)}`))
      live.push(answer.refresh_token as string)
    }
  } else if (name === "userinfo") {
    const token = (await call(tokenRequest(codeBody(await mint())))).access_token as string
    work = async () => { if ((await call(userinfoRequest(token))).sub !== BENCH_USER.id) throw new Error("not the bench user") }
  } else throw new Error(`unknown case ${name}`)
  const start = process.cpuUsage()
  const loopStart = performance.eventLoopUtilization()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (left-- > 0) await work() }))
  const loop = performance.eventLoopUtilization(loopStart)
  const used = process.cpuUsage(start)
  return { cpu: (used.user + used.system) / CALLS, loop: (loop.active * 1000) / CALLS }
}

const cases = process.argv.slice(2).length ? process.argv.slice(2) : ["code", "refresh", "userinfo"]
for (const name of cases) {
  const cpu: string[] = []
  const loop: string[] = []
  for (let i = 0; i < REPEAT; i++) {
    const figures = await measure(name)
    cpu.push(figures.cpu.toFixed(0))
    loop.push(figures.loop.toFixed(0))
  }
  console.log(`${name.padEnd(10)} ${cpu.join(" / ")} µs CPU per call; event loop busy ${loop.join(" / ")} µs per call`)
}
