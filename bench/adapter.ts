/**
 * The node:http ⇄ Web adapter every bench server uses, identically for both libraries and
 * the baseline: an `IncomingMessage` becomes a Web `Request`, the handler's `Response`
 * goes back out through the `ServerResponse`. Deliberately small and plain, so its cost is
 * the same constant in every row of the table (the baseline row measures exactly it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

export type WebHandler = (request: Request) => Promise<Response> | Response

/** The Web `Request` for a node request; the body is read fully (auth bodies are tiny). */
export async function toWebRequest(req: IncomingMessage): Promise<Request> {
  const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`
  const headers = new Headers()
  const raw = req.rawHeaders
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  const method = req.method ?? "GET"
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers })
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return new Request(url, { method, headers, body: Buffer.concat(chunks) })
}

/** What the adapter sends for a Web `Response`: its headers (`Set-Cookie` one per cookie) and its body, read fully. */
export async function responseParts(response: Response): Promise<{ headers: Record<string, string | string[]>; body: Buffer | undefined }> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) headers["set-cookie"] = cookies
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined
  return { headers, body }
}

/** Writes a Web `Response` to the node response. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const { headers, body } = await responseParts(response)
  res.writeHead(response.status, headers)
  res.end(body)
}

/** A plain `http.createServer` serving `handler` through the adapter. A throw is a bare 500. */
export function serve(handler: WebHandler): Server {
  return createServer((req, res) => {
    toWebRequest(req)
      .then(handler)
      .then((response) => sendWebResponse(res, response))
      .catch((error: unknown) => {
        console.error("bench server: handler failed:", error)
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
        res.end("internal error")
      })
  })
}
