/**
 * The Node side of `pool.ts`: an HTTP endpoint on 127.0.0.1 that runs the queries of a
 * Worker on a real PostgreSQL through `pg`. Each `POST /connections` reserves a pooled
 * `pg` client under a random id; `POST /connections/:id/query` runs one statement on it
 * (so `begin … commit` stays on one connection); `DELETE /connections/:id` releases it.
 * Every call needs the bearer token. Closing the endpoint releases whatever is still held.
 * @module
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"

export interface SqlEndpoint {
  url: string
  token: string
  /** Connections reserved and not yet released. */
  held(): number
  close(): Promise<void>
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = ""
  for await (const chunk of request) text += chunk
  const value: unknown = text ? JSON.parse(text) : {}
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("the body must be a JSON object")
  return value as Record<string, unknown>
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}

/** Serves `databaseUrl` over HTTP until `close()`. */
export async function startSqlEndpoint(databaseUrl: string): Promise<SqlEndpoint> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  // A connection the server drops must cost a query, not this process.
  pool.on("error", () => undefined)
  const clients = new Map<string, pg.PoolClient>()
  const token = randomBytes(24).toString("hex")
  const expected = Buffer.from(`Bearer ${token}`)

  const server = createServer(async (request, response) => {
    const given = Buffer.from(request.headers.authorization ?? "")
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return send(response, 401, { error: { message: "unauthorized" } })
    const [, , id, action] = (request.url ?? "").split("/") // "", "connections", id?, "query"?
    try {
      const body = await readJson(request)
      if (request.method === "POST" && id === undefined) {
        const client = await pool.connect()
        client.on("error", () => undefined)
        const key = randomBytes(12).toString("hex")
        clients.set(key, client)
        return send(response, 200, { id: key })
      }
      const client = id === undefined ? undefined : clients.get(id)
      if (!client) return send(response, 404, { error: { message: "no such connection" } })
      if (request.method === "POST" && action === "query") {
        if (typeof body.sql !== "string" || !Array.isArray(body.parameters)) return send(response, 400, { error: { message: "sql and parameters are required" } })
        const result = await client.query(body.sql, body.parameters)
        return send(response, 200, { command: result.command, rowCount: result.rowCount ?? 0, rows: result.rows })
      }
      if (request.method === "DELETE" && action === undefined) {
        clients.delete(id!)
        client.release(body.destroy === true)
        return send(response, 200, {})
      }
      return send(response, 404, { error: { message: "not found" } })
    } catch (error) {
      const { message, code } = error as { message: string; code?: string }
      return send(response, 400, { error: { message, code } })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    held: () => clients.size,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      for (const client of clients.values()) client.release(true)
      clients.clear()
      await pool.end()
    },
  }
}
