/**
 * The session-check parser's short road (`lib/http/session-check.ts`) reads a URL string as
 * `http://` or `https://`, host, path. A Request can carry any scheme (`ftp:`, `ws:`, a
 * non-special `x:/path`); such a URL is no session check it knows, even where AUTH_URL fixes
 * the origin and the path matches: the full parser judges it.
 */
import { describe, expect, it } from "vitest"
import { resolve } from "../../src/lib/config/resolve.js"
import { SessionCheckParser } from "../../src/lib/http/session-check.js"
import { SECRET } from "../helpers.js"

const config = resolve({ secret: SECRET, providers: [], trustHost: false }, { AUTH_URL: "https://site.example/auth" })
const parser = new SessionCheckParser(config)
const site = { origin: "https://site.example", trusted: true }

describe("URLs of other schemes", () => {
  it("take the short road only over http and https", () => {
    expect(parser.origin(new Request("https://site.example/auth/session"))).toEqual(site)
    expect(parser.origin(new Request("http://site.example/auth/session"))).toEqual(site)
  })

  for (const url of ["ftp://site.example/auth/session", "ws://site.example/auth/session", "wss://site.example/auth/session", "x:/auth/session", "file:///auth/session"]) {
    it(`leave ${url} to the full parser`, () => {
      expect(parser.origin(new Request(url))).toBeUndefined()
    })
  }
})
