/**
 * `node bench/op-floor.ts`: the floor of the OP token row — the bench adapter (node:http ⇄ Web
 * Request/Response) answering a fixed token-shaped JSON (the size of a code exchange's answer,
 * with its headers) to the row's own POST, under the row's load; with FLOOR_NATIVE=1 the same
 * answer from plain node:http instead of the Web adapter. What remains of a token request
 * once every library cost is gone (issue 34's figures); not part of `npm run bench`.
 */
import autocannon, { type Result } from "autocannon"
import { fork } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { serve } from "./adapter.ts"

const SIZE = Number(process.env.FLOOR_BODY ?? 1_450)

if (process.argv[2] === "server") {
  const body = JSON.stringify({ access_token: "a".repeat(SIZE - 300), token_type: "Bearer", expires_in: 3600, refresh_token: "r".repeat(43), scope: "openid email profile offline_access" })
  const headers = { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache", "x-content-type-options": "nosniff" }
  // FLOOR_NATIVE=1: the same answer from plain node:http (`res.end` of a string, as
  // oidc-provider's own Koa handler writes it), for what the Web round trip itself costs.
  const server = process.env.FLOOR_NATIVE
    ? createServer((req, res) => {
        req.resume()
        req.on("end", () => {
          for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
          res.end(body)
        })
      })
    : serve(async (request) => {
        await request.text()
        return new Response(body, { headers })
      })
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as { port: number }).port))
} else {
  const child = fork(new URL(import.meta.url).pathname, ["server"], { execArgv: process.execArgv })
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(m as number)))
  const cpu = () => {
    const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100
  }
  const body = `grant_type=authorization_code&code=${"c".repeat(43)}&redirect_uri=https%3A%2F%2Frp.bench.example%2Fcallback&code_verifier=bench-pkce-verifier-0123456789abcdefghijklmnopq`
  const run = (duration: number) =>
    new Promise<Result>((resolve, reject) =>
      autocannon(
        { url: `http://127.0.0.1:${port}`, connections: 10, duration, requests: [{ method: "POST", path: "/auth/oidc/token", headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Basic YmVuY2g6YmVuY2gtb3AtY2xpZW50LXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OQ==" }, body }] },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    )
  await run(3)
  for (let i = 0; i < 3; i++) {
    const before = cpu()
    const result = await run(2)
    console.log(`token-shaped floor: ${Math.round(result.requests.mean)} req/s, ${Math.round((cpu() - before) / result.requests.total)} µs CPU/req`)
  }
  child.kill()
}
