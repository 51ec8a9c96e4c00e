/**
 * The built-in pages as Auth.js's, where an app can observe them (issue #16 C.11): their
 * `<title>`s, which apps' browser tests look for. Each page is fetched from both libraries.
 */
import { describe, expect, it } from "vitest"
import { Auth as AuthJs } from "@auth/core"
import { Auth, type AuthConfig } from "@portcullis/core"
import { SECRET } from "../helpers.js"

const silent = { error: () => {}, warn: () => {}, debug: () => {} }

describe("the built-in pages carry Auth.js's titles", () => {
  it.each([["/auth/signin"], ["/auth/signout"], ["/auth/verify-request"], ["/auth/error"], ["/auth/error?error=%3Cscript%3E"]])("GET %s", async (path) => {
    // Auth.js's layout: the default identifier-first page's title is "Sign in", as its heading.
    const config = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [], logger: silent, theme: { layout: "authjs" } })
    const title = async (r: Response) => (await r.text()).match(/<title>([^<]*)<\/title>/)?.[1]
    const ours = await title(await Auth(new Request(`http://localhost:3000${path}`), config()))
    const theirs = await title(await AuthJs(new Request(`http://localhost:3000${path}`), { ...config(), basePath: "/auth" } as any))
    expect(ours).toBe(theirs)
  })
})
