/** Small node:http helpers shared by the prov-a provider stand-ins. */
import type { IncomingMessage, ServerResponse } from "node:http"

export interface Logged {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage["headers"]
  body: URLSearchParams
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = ""
    req.on("data", (c) => (data += c))
    req.on("end", () => resolve(data))
  })
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body))
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1 form-encoding undone) or the body. */
export function clientCredentials(req: IncomingMessage, body: URLSearchParams): [string | null, string | null] {
  const auth = req.headers.authorization
  if (auth?.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(auth.slice(6), "base64").toString().split(":").map((s) => decodeURIComponent(s.replace(/\+/g, " ")))
    return [id ?? null, secret ?? null]
  }
  return [body.get("client_id"), body.get("client_secret")]
}

/** RFC 7636 S256. */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))
  return Buffer.from(digest).toString("base64url")
}
