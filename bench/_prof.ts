import { Session } from "node:inspector/promises"
import { writeFileSync } from "node:fs"
import { Auth } from "@portcullis/core"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { responseParts } from "./adapter.ts"
import { portcullisDbConfig } from "./configs.ts"
import { createBenchDatabase, openDb } from "./db.ts"
import { databaseCookies, newRunId, Rotation } from "./sessions.ts"
import { BASE_PATH, BENCH_USER, sessionToken } from "./shared.ts"
const N = 20000
const kind = process.argv[2] ?? "sqlite"
const runId = newRunId()
let adapter
if (kind === "sqlite") {
  const database = await createBenchDatabase("sqlite")
  await database.seedSessions(runId, N)
  adapter = SqlAdapter(openDb(database.spec), { tables: database.spec.tables })
} else {
  adapter = MemoryAdapter()
  await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
  const expires = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000)
  for (let i = 0; i < N; i++) await adapter.createSession!({ sessionToken: sessionToken(runId, i), userId: BENCH_USER.id, expires })
}
const config = portcullisDbConfig(adapter)
const rotation = new Rotation(databaseCookies(runId, N))
const url = `http://127.0.0.1:3000${BASE_PATH}/session`
function request(cookie: string): Request {
  const raw = ["host", "127.0.0.1:3000", "connection", "keep-alive", "cookie", cookie]
  const headers = new Headers()
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return new Request(url, { method: "GET", headers })
}
async function drive(calls: number) {
  let left = calls
  const worker = async () => { while (left-- > 0) { const { body } = await responseParts(await Auth(request(rotation.next()), config as never)); if (!body!.toString().includes(BENCH_USER.email)) throw new Error("bad") } }
  await Promise.all(Array.from({ length: 10 }, worker))
}
await drive(30000)
const s = new Session(); s.connect()
await s.post("Profiler.enable"); await s.post("Profiler.setSamplingInterval", { interval: 50 }); await s.post("Profiler.start")
const t = process.cpuUsage()
await drive(200000)
const u = process.cpuUsage(t)
const { profile } = await s.post("Profiler.stop")
console.log(kind, ((u.user + u.system) / 200000).toFixed(1), "µs/call")
writeFileSync(`/tmp/prof-${kind}/p.cpuprofile`, JSON.stringify(profile))
process.exit(0)
