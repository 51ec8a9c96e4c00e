import { DatabaseSync } from "node:sqlite"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { createBenchDatabase, openDb } from "./db.ts"
import { newRunId } from "./sessions.ts"
import { sessionToken } from "./shared.ts"
const N = 20000
const database = await createBenchDatabase("sqlite")
const runId = newRunId()
await database.seedSessions(runId, N)
const tokens = Array.from({ length: N }, (_, i) => sessionToken(runId, i))
const raw = new DatabaseSync(database.spec.location)
const sql = `select "u".*, "s"."id" as "s_id", "s"."sessionToken" as "s_sessionToken", "s"."userId" as "s_userId", "s"."expires" as "s_expires" from "sessions" as "s" inner join "users" as "u" on "u"."id" = "s"."userId" where "s"."sessionToken" = ?`
const st = raw.prepare(sql)
console.log(st.all(tokens[0]))
const M = 200000
let t = process.cpuUsage()
for (let i = 0; i < M; i++) st.all(tokens[i % N])
let u = process.cpuUsage(t); console.log("raw all", ((u.user + u.system) / M).toFixed(2))
const db = openDb(database.spec)
const adapter = SqlAdapter(db, { tables: database.spec.tables })
for (let i = 0; i < 20000; i++) await adapter.getSessionAndUser!(tokens[i % N])
t = process.cpuUsage()
for (let i = 0; i < M; i++) await adapter.getSessionAndUser!(tokens[i % N])
u = process.cpuUsage(t); console.log("adapter seq", ((u.user + u.system) / M).toFixed(2))
t = process.cpuUsage()
for (let i = 0; i < M; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => adapter.getSessionAndUser!(tokens[(i + k) % N])))
u = process.cpuUsage(t); console.log("adapter 10 at once", ((u.user + u.system) / M).toFixed(2))
await db.destroy(); await database.close()
