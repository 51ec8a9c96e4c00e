// Production entry: the SolidStart SSR build (a fetch handler) behind Node's http module,
// with the client build served as static files, beside the local demo OpenID provider
// (unless DEMO_OIDC_ISSUER names one).
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { extname, join, normalize } from "node:path"
import { Readable } from "node:stream"
import { serveExample } from "@portcullis/example-kit/serve"

const clientDir = join(import.meta.dirname, "dist", "client")
const types = { ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon", ".json": "application/json" }

/** A built asset under /_build/, or undefined. Paths are normalised so `..` cannot leave the folder. */
async function staticFile(pathname) {
  if (!pathname.startsWith("/_build/")) return undefined
  const file = normalize(join(clientDir, decodeURIComponent(pathname)))
  if (!file.startsWith(clientDir)) return undefined
  const info = await stat(file).catch(() => undefined)
  return info?.isFile() ? file : undefined
}

/** Serves built assets, and everything else through the app's fetch handler. */
function handle(app, origin) {
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", origin)
      const file = req.method === "GET" || req.method === "HEAD" ? await staticFile(url.pathname) : undefined
      if (file) {
        res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream", "cache-control": "public, max-age=31536000, immutable" })
        return req.method === "HEAD" ? res.end() : createReadStream(file).pipe(res)
      }
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v)
        else if (value !== undefined) headers.set(name, value)
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD"
      const request = new Request(url, { method: req.method, headers, body: hasBody ? Readable.toWeb(req) : undefined, duplex: hasBody ? "half" : undefined })
      const response = await app.fetch(request)
      const outHeaders = {}
      for (const [name, value] of response.headers) if (name !== "set-cookie") outHeaders[name] = value
      const cookies = response.headers.getSetCookie()
      if (cookies.length) outHeaders["set-cookie"] = cookies
      res.writeHead(response.status, outHeaders)
      if (response.body) Readable.fromWeb(response.body).pipe(res)
      else res.end()
    } catch (error) {
      console.error(error)
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end("Internal error")
    }
  }
}

await serveExample({
  name: "SolidStart",
  callbackPath: "/api/auth/callback/demo-oidc",
  load: async (origin) => handle((await import("./dist/server/entry-server.js")).default, origin),
})
