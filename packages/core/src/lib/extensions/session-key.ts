/**
 * A session's key for one extension (`ExtensionSession.key`), apart from the tools that hand
 * it out, so the session checks (`fields.ts`) and the tools (`tools.ts`) share it without
 * importing each other.
 * @module
 */
import { sha256Hex } from "../crypto.js"

/**
 * A session's key for one extension: a hash of the extension, the user and the session's
 * own id (the public id of a database session, a JWT's session claim). A token issued
 * before sessions had ids has none: its key is the user's, shared by such sessions.
 */
export async function sessionKey(id: string, userId: string, sessionId: string | undefined): Promise<string> {
  return (await sha256Hex(`portcullis-extension\u0000${id}\u0000${userId}\u0000${sessionId ?? "user"}`)).slice(0, 40)
}
