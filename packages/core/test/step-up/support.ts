/**
 * Test support for the sensitive actions (docs/step-up.md): a signed-in, stepped-up request
 * for any user of a configuration, without going through a provider — for tests whose
 * subject is what comes after the step-up (2FA enrollment as a set-up step). Tests of the
 * step-up itself sign in and re-authenticate over HTTP instead.
 */
import type { AuthConfig } from "@portcullis/core"
import type { SessionRequest } from "@portcullis/core/integration"
import { runtimeFor, type AuthRuntime } from "@portcullis/core/integration"
import { storageKey } from "../../src/lib/session/database.js"
import { publicId } from "../../src/lib/session/manage.js"
import { SESSION_ID_CLAIM, STEP_UP_ID_CLAIM } from "../../src/lib/session/registry.js"
import { markFresh } from "../../src/lib/step-up/marks.js"

const ORIGIN = "http://localhost:3000"

/**
 * A request signed in as `userId` whose session just proved a first factor: what an app's
 * settings page hands the enrollment functions. The session is real (a JWT the
 * configuration opens, or a database row) and marked in the configuration's step-up store.
 */
export async function steppedUp(auth: AuthConfig | AuthRuntime, userId: string, origin = ORIGIN): Promise<SessionRequest> {
  const cookie = await sessionCookie(auth, userId, origin, true)
  return { origin, headers: new Headers({ cookie }), skipCSRF: true }
}

/** The same, signed in but not stepped up (a stolen cookie, an old session). */
export async function signedInOnly(auth: AuthConfig | AuthRuntime, userId: string, origin = ORIGIN): Promise<SessionRequest> {
  const cookie = await sessionCookie(auth, userId, origin, false)
  return { origin, headers: new Headers({ cookie }), skipCSRF: true }
}

async function sessionCookie(auth: AuthConfig | AuthRuntime, userId: string, origin: string, fresh: boolean): Promise<string> {
  const { config } = runtimeFor(auth)
  const { name } = config.cookies(origin.startsWith("https:")).sessionToken
  const id = randomId()
  const now = Date.now()
  if (config.session.strategy === "database") {
    const token = crypto.randomUUID()
    const key = await storageKey(config, token)
    await config.adapter!.createSession!({ sessionToken: key, userId, expires: new Date(now + config.session.maxAge * 1000) })
    if (fresh) await markFresh(config, { userId, id: await publicId(key) })
    return `${name}=${token}`
  }
  const registry = config.sessionRegistry
  if (registry) await registry.store.add({ id, userId, createdAt: new Date(now), lastSeenAt: new Date(now), expires: new Date(now + config.session.maxAge * 1000) })
  const claims = { sub: userId, [registry ? SESSION_ID_CLAIM : STEP_UP_ID_CLAIM]: id, ...(registry && { pcl_created: Math.floor(now / 1000) }) }
  const secret = config.secrets.length === 1 ? config.secrets[0]! : config.secrets
  const value = await config.jwt.encode({ token: claims, secret, salt: name, maxAge: config.jwt.maxAge })
  if (fresh) await markFresh(config, { userId, id })
  return `${name}=${value}`
}

function randomId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("")
}
