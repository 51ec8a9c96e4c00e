/**
 * `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5): the device polls with
 * its device code; the store answers each poll in one step — too soon is `slow_down` (and the
 * interval grows), an approval is handed out once, so a second poll with the same code gets
 * nothing.
 * @module
 */
import { OAuthError } from "../errors.js"
import { sha256Hex } from "../random.js"
import { DEVICE_GRANT } from "../device/codes.js"
import { refreshAllowed, tokenResponse } from "./issue.js"
import type { GrantHandler } from "./types.js"

export const deviceCode: GrantHandler = async ({ req, locals, client, body, issuer }) => {
  if (!(client.grantTypes as string[]).includes(DEVICE_GRANT)) throw new OAuthError("unauthorized_client", "This client may not use the device authorization grant")
  if (!body.device_code) throw new OAuthError("invalid_request", "device_code is required")
  const poll = await locals.store.pollDevice(await sha256Hex(body.device_code), new Date())
  switch (poll.status) {
    case "pending":
      throw new OAuthError("authorization_pending", "The user has not answered yet")
    case "slow_down":
      throw new OAuthError("slow_down", "Polling too fast: wait the interval, plus 5 seconds")
    case "denied":
      throw new OAuthError("access_denied", "The user denied the request")
    case "missing":
      throw new OAuthError("expired_token", "The device code is unknown, expired or already used")
  }
  const device = poll.device
  // The device code was another client's: that approval is spent, and its grant ends with it.
  if (device.clientId !== client.clientId || !device.grantId || !device.userId) {
    if (device.grantId) await locals.store.revokeGrant(device.grantId)
    throw new OAuthError("invalid_grant", "The device code was issued to another client")
  }
  const grant = await locals.store.getGrant(device.grantId)
  if (!grant) throw new OAuthError("invalid_grant", "The grant was revoked")
  await req.audit({ type: "deviceTokenIssued", outcome: "success", userId: device.userId, details: { clientId: client.clientId } })
  return tokenResponse({
    locals,
    issuer,
    client,
    grantId: device.grantId,
    userId: device.userId,
    scope: device.scope,
    resources: device.resources,
    ...(device.authTime !== undefined && { authTime: device.authTime }),
    withRefresh: refreshAllowed(locals, client, device.scope),
    withIdToken: true,
  })
}
