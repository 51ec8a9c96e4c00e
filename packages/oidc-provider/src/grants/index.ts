/**
 * The token endpoint's grants by `grant_type`: adding one (the device grant) is one file and
 * one entry here.
 * @module
 */
import { authorizationCode } from "./authorization-code.js"
import { clientCredentials } from "./client-credentials.js"
import { deviceCode } from "./device-code.js"
import { refreshToken } from "./refresh-token.js"
import type { GrantHandler } from "./types.js"

export type { GrantContext, GrantHandler } from "./types.js"

export const grants: Readonly<Record<string, GrantHandler>> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
  client_credentials: clientCredentials,
  "urn:ietf:params:oauth:grant-type:device_code": deviceCode,
}
