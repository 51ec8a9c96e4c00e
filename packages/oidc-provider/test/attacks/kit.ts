/**
 * The attacker's toolkit: the relying party's calls (code exchange, refresh, userinfo,
 * introspection) on a test bed, and what a refusal must look like.
 */
import { expect } from "vitest"
import { RP, SECRET_WEB, basic, type Testbed } from "../support.js"

export const web = basic("web", SECRET_WEB)
export const first = basic("first", SECRET_WEB)

export function exchange(bed: Testbed, code: string, extra: Record<string, string> = {}, headers: Record<string, string> = web) {
  return bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP, ...extra }, headers })
}

export function refresh(bed: Testbed, token: string, extra: Record<string, string> = {}, headers: Record<string, string> = web) {
  return bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: token, ...extra }, headers })
}

export const userinfo = (bed: Testbed, token: string) => bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${token}` } })

export const introspect = (bed: Testbed, token: string, headers: Record<string, string> = web) => bed.call("/auth/oidc/introspect", { form: { token }, headers })

/** A token endpoint refusal: the status, the error code, no token of any kind in the answer, never cached. */
export function refused(answer: { status: number; body: any; headers: Headers }, error: string, status = 400): void {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error })
  expect(answer.body.access_token).toBeUndefined()
  expect(answer.body.refresh_token).toBeUndefined()
  expect(answer.body.id_token).toBeUndefined()
  expect(answer.headers.get("cache-control")).toBe("no-store")
}

/** A bearer token that no longer opens anything: userinfo 401 and introspection inactive. */
export async function dead(bed: Testbed, accessToken: string): Promise<void> {
  const info = await userinfo(bed, accessToken)
  expect(info.status).toBe(401)
  expect(info.body.error).toBe("invalid_token")
  expect((await introspect(bed, accessToken)).body).toEqual({ active: false })
}

/** The base64url JSON segments of a JWT. */
export function decodeJwt(token: string): { header: any; payload: any; signature: string } {
  const [h, p, s] = token.split(".")
  const part = (v: string) => JSON.parse(Buffer.from(v, "base64url").toString("utf8"))
  return { header: part(h!), payload: part(p!), signature: s! }
}

/** A JWT of `header` and `payload` with `signature` (already base64url). */
export function encodeJwt(header: object, payload: object, signature = ""): string {
  const b = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url")
  return `${b(header)}.${b(payload)}.${signature}`
}
