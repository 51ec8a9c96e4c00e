/**
 * The Portcullis adapter over an unstorage `Storage`: any key-value store unstorage has a
 * driver for (Cloudflare KV, Vercel KV / Upstash, Redis, the filesystem, memory, ...).
 * @module
 */
import type { Storage } from "unstorage"
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@portcullis/core/adapters"
import { unstorageKeys, type UnstorageKeys } from "./keys.js"

/** Options of {@link UnstorageAdapter}. */
export interface UnstorageAdapterOptions {
  /** Every key starts with `<prefix>:`. Default `portcullis`. */
  prefix?: string
  /**
   * Also give session and verification-token keys a time-to-live ending at `expires`
   * (unstorage's `ttl` option, in seconds, at least 60 because Cloudflare KV refuses less),
   * so the store drops them by itself. Drivers without TTLs ignore it; expiry is checked on
   * every read either way. Default `true`.
   */
  ttl?: boolean
}

type Stored<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] }

const reviveUser = (u: Stored<AdapterUser>): AdapterUser => ({
  ...u,
  emailVerified: u.emailVerified == null ? null : new Date(u.emailVerified),
})
const reviveSession = (s: Stored<AdapterSession>): AdapterSession => ({ ...s, expires: new Date(s.expires) })
const reviveToken = (t: Stored<VerificationToken>): VerificationToken => ({ ...t, expires: new Date(t.expires) })

/** The stored form: JSON, dates as ISO strings, `undefined` fields left out. */
function store<T extends object>(record: T): Stored<T> {
  return JSON.parse(JSON.stringify(record)) as Stored<T>
}

/**
 * The email index holds an object, not the bare id: unstorage parses stored strings with
 * `destr`, which would turn an id like `"123"` into a number.
 */
interface EmailIndex {
  id: string
}

/** Parses what a driver returned raw (a JSON string) or what unstorage already parsed. */
function parsed<T>(value: unknown): T | null {
  if (value == null) return null
  if (typeof value === "string") return JSON.parse(value) as T
  return value as T
}

/**
 * The last queued task per key, shared by every adapter in this process (module scope):
 * apps that build their config, and so the adapter and even the `Storage`, per request
 * (Cloudflare Workers, Next.js lazy init) are still queued together. Entries are removed
 * when their queue drains, so the map holds only keys in use.
 */
const tails = new Map<string, Promise<unknown>>()

/** Runs `task` after every earlier task on the same key in this process has finished. */
async function serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve()
  const run = previous.then(task, task)
  const tail = run.catch(() => {})
  tails.set(key, tail)
  try {
    return await run
  } finally {
    if (tails.get(key) === tail) tails.delete(key)
  }
}

interface RedisLike {
  getdel(key: string): Promise<string | null>
}

/**
 * An atomic get-and-delete for `key` when the driver it is mounted on offers one (the Redis
 * driver: `GETDEL`, Redis 6.2+), else `undefined`.
 */
function atomicTake(storage: Storage, key: string): (() => Promise<unknown>) | undefined {
  const { base, driver } = storage.getMount(key)
  if (driver.name !== "redis" || typeof driver.getInstance !== "function") return undefined
  const client = driver.getInstance() as Partial<RedisLike> | undefined
  if (typeof client?.getdel !== "function") return undefined
  const driverBase = String((driver.options as { base?: string } | undefined)?.base ?? "").replace(/:$/, "")
  const relative = key.slice(base.length)
  const redisKey = driverBase ? `${driverBase}:${relative}` : relative
  return () => client.getdel!(redisKey)
}

/**
 * Creates the adapter.
 *
 * Guarantees, and where they stop (a key-value store has no transactions):
 * - `useVerificationToken` hands a token out once. On the Redis driver it uses `GETDEL`,
 *   atomic across every process. On other drivers it reads then deletes; concurrent uses
 *   in one process are queued per token (across adapter instances), so exactly one wins
 *   there, but two processes (or two Workers isolates on Cloudflare KV) racing on the same
 *   link can both win.
 * - Uniqueness (one user per email, one link per provider account, one authenticator per
 *   credential id) is checked before writing, in the same process order; two processes
 *   creating the same email at the same instant can both succeed.
 * - Per-user indexes (accounts, sessions, authenticators) are read-modify-write; a lost
 *   index entry only means `deleteUser` leaves an orphan record, which reads then ignore
 *   (a session whose user is gone reads as no session and is deleted) and which does not
 *   block a new user, account or credential with the same email or id.
 * - Expired sessions and tokens read as absent and are deleted on that read.
 *
 * @example
 * ```ts
 * import { createStorage } from "unstorage"
 * import fsDriver from "unstorage/drivers/fs"
 * import { UnstorageAdapter } from "@portcullis/unstorage-adapter"
 *
 * const storage = createStorage({ driver: fsDriver({ base: "./.data/auth" }) })
 * export const config = { adapter: UnstorageAdapter(storage), providers: [...] }
 * ```
 */
export function UnstorageAdapter(storage: Storage, options: UnstorageAdapterOptions = {}): Adapter {
  const k: UnstorageKeys = unstorageKeys(options.prefix)
  const useTtl = options.ttl ?? true

  const read = async <T>(key: string): Promise<T | null> => parsed<T>(await storage.getItem(key))
  const write = (key: string, value: unknown, expires?: Date) => {
    if (!useTtl || !expires) return storage.setItem(key, value as never)
    const ttl = Math.max(60, Math.ceil((expires.getTime() - Date.now()) / 1000))
    return storage.setItem(key, value as never, { ttl })
  }
  const remove = (key: string) => storage.removeItem(key)

  async function addToList<T>(key: string, entry: T) {
    await serialize(key, async () => {
      const list = (await read<T[]>(key)) ?? []
      if (!list.some((e) => JSON.stringify(e) === JSON.stringify(entry))) await write(key, [...list, entry])
    })
  }
  async function removeFromList<T>(key: string, entry: T) {
    await serialize(key, async () => {
      const list = (await read<T[]>(key)) ?? []
      const rest = list.filter((e) => JSON.stringify(e) !== JSON.stringify(entry))
      if (rest.length === list.length) return
      if (rest.length) await write(key, rest)
      else await remove(key)
    })
  }

  async function getUser(id: string): Promise<AdapterUser | null> {
    const user = await read<Stored<AdapterUser>>(await k.user(id))
    return user ? reviveUser(user) : null
  }

  async function readSession(sessionToken: string): Promise<AdapterSession | null> {
    const key = await k.session(sessionToken)
    const stored = await read<Stored<AdapterSession>>(key)
    if (!stored) return null
    const session = reviveSession(stored)
    if (session.expires.getTime() <= Date.now()) {
      await remove(key)
      return null
    }
    return session
  }

  async function getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
    return read<AdapterAccount>(await k.account(provider, providerAccountId))
  }

  async function getAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null> {
    return read<AdapterAuthenticator>(await k.authenticator(credentialID))
  }

  return {
    async createUser(user) {
      const emailKey = await k.userByEmail(user.email)
      return serialize(emailKey, async () => {
        const owner = await read<EmailIndex>(emailKey)
        // An index entry whose user is gone (or has another email now) is stale: reuse it.
        if (owner && (await getUser(owner.id))?.email === user.email) {
          throw new Error("UnstorageAdapter: a user with this email already exists")
        }
        await write(await k.user(user.id), store(user))
        await write(emailKey, { id: user.id } satisfies EmailIndex)
        return { ...user }
      })
    },

    getUser,

    async getUserByEmail(email) {
      const index = await read<EmailIndex>(await k.userByEmail(email))
      if (!index) return null
      const user = await getUser(index.id)
      return user && user.email === email ? user : null
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const account = await getAccount(providerAccountId, provider)
      return account ? getUser(account.userId) : null
    },

    async updateUser(partial) {
      const current = await getUser(partial.id)
      if (!current) throw new Error("UnstorageAdapter: updateUser on an unknown user")
      const updated: AdapterUser = { ...current, ...partial }
      if (updated.email !== current.email) {
        const emailKey = await k.userByEmail(updated.email)
        const owner = await read<EmailIndex>(emailKey)
        if (owner && owner.id !== updated.id && (await getUser(owner.id))?.email === updated.email) {
          throw new Error("UnstorageAdapter: a user with this email already exists")
        }
        await write(emailKey, { id: updated.id } satisfies EmailIndex)
        await remove(await k.userByEmail(current.email))
      }
      await write(await k.user(updated.id), store(updated))
      return updated
    },

    async deleteUser(userId) {
      const user = await getUser(userId)
      const accountsKey = await k.userAccounts(userId)
      const sessionsKey = await k.userSessions(userId)
      const authenticatorsKey = await k.userAuthenticators(userId)
      const accounts = (await read<[string, string][]>(accountsKey)) ?? []
      const sessions = (await read<string[]>(sessionsKey)) ?? []
      const authenticators = (await read<string[]>(authenticatorsKey)) ?? []
      await Promise.all([
        ...accounts.map(async ([provider, id]) => remove(await k.account(provider, id))),
        ...sessions.map(async (token) => remove(await k.session(token))),
        ...authenticators.map(async (credentialID) => remove(await k.authenticator(credentialID))),
      ])
      await Promise.all([remove(accountsKey), remove(sessionsKey), remove(authenticatorsKey), remove(await k.userPassword(userId))])
      if (user) {
        const emailKey = await k.userByEmail(user.email)
        if ((await read<EmailIndex>(emailKey))?.id === userId) await remove(emailKey)
      }
      await remove(await k.user(userId))
      return user
    },

    async linkAccount(account) {
      const key = await k.account(account.provider, account.providerAccountId)
      await serialize(key, async () => {
        const existing = await read<AdapterAccount>(key)
        // An account left behind by a deleted user (a lost index entry) does not block.
        if (existing && (await getUser(existing.userId))) throw new Error("UnstorageAdapter: this provider account is already linked")
        await write(key, store(account))
      })
      await addToList(await k.userAccounts(account.userId), [account.provider, account.providerAccountId])
      return account
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const account = await getAccount(providerAccountId, provider)
      if (!account) return undefined
      await remove(await k.account(provider, providerAccountId))
      await removeFromList(await k.userAccounts(account.userId), [provider, providerAccountId])
      return account
    },

    getAccount,

    async createSession(session) {
      await write(await k.session(session.sessionToken), store(session), session.expires)
      await addToList(await k.userSessions(session.userId), session.sessionToken)
      return { ...session }
    },

    async getSessionAndUser(sessionToken) {
      const session = await readSession(sessionToken)
      if (!session) return null
      const user = await getUser(session.userId)
      if (!user) {
        // The user was deleted and this session missed the index: drop the orphan.
        await remove(await k.session(sessionToken))
        return null
      }
      return { session, user }
    },

    async updateSession(partial) {
      const key = await k.session(partial.sessionToken)
      return serialize(key, async () => {
        const current = await readSession(partial.sessionToken)
        // Never re-create a session that sign-out deleted.
        if (!current) return null
        const updated: AdapterSession = { ...current, ...partial }
        await write(key, store(updated), updated.expires)
        return updated
      })
    },

    async deleteSession(sessionToken) {
      const key = await k.session(sessionToken)
      const stored = await read<Stored<AdapterSession>>(key)
      if (!stored) return null
      await remove(key)
      await removeFromList(await k.userSessions(stored.userId), sessionToken)
      return reviveSession(stored)
    },

    async createVerificationToken(token) {
      await write(await k.verificationToken(token.identifier, token.token), store(token), token.expires)
      return { ...token }
    },

    async useVerificationToken({ identifier, token }) {
      const key = await k.verificationToken(identifier, token)
      const take = atomicTake(storage, key)
      const stored = await serialize(key, async () => {
        if (take) return parsed<Stored<VerificationToken>>(await take())
        const value = await read<Stored<VerificationToken>>(key)
        if (value) await remove(key)
        return value
      })
      if (!stored) return null
      const used = reviveToken(stored)
      // An expired token was deleted all the same; it signs nobody in.
      return used.expires.getTime() <= Date.now() ? null : used
    },

    async createAuthenticator(authenticator) {
      const key = await k.authenticator(authenticator.credentialID)
      await serialize(key, async () => {
        const existing = await read<AdapterAuthenticator>(key)
        if (existing && (await getUser(existing.userId))) throw new Error("UnstorageAdapter: this credential id is already registered")
        await write(key, store(authenticator))
      })
      await addToList(await k.userAuthenticators(authenticator.userId), authenticator.credentialID)
      return { ...authenticator }
    },

    getAuthenticator,

    async listAuthenticatorsByUserId(userId) {
      const ids = (await read<string[]>(await k.userAuthenticators(userId))) ?? []
      const found = await Promise.all(ids.map((id) => getAuthenticator(id)))
      return found.filter((a): a is AdapterAuthenticator => a != null && a.userId === userId)
    },

    async updateAuthenticatorCounter(credentialID, counter) {
      const key = await k.authenticator(credentialID)
      return serialize(key, async () => {
        const current = await getAuthenticator(credentialID)
        if (!current) throw new Error("UnstorageAdapter: updateAuthenticatorCounter on an unknown credential")
        const updated = { ...current, counter }
        await write(key, store(updated))
        return updated
      })
    },

    async getUserPassword(userId) {
      // A hash left behind by an interrupted deleteUser belongs to no one.
      const [stored, user] = await Promise.all([read<{ hash: string }>(await k.userPassword(userId)), getUser(userId)])
      return user && typeof stored?.hash === "string" ? stored.hash : null
    },

    async setUserPassword(userId, hash) {
      if (!(await getUser(userId))) throw new Error("UnstorageAdapter: setUserPassword for an unknown user")
      const key = await k.userPassword(userId)
      // One write at a time per key in this process: the fs driver tears a file written twice at once.
      await serialize(key, () => write(key, { hash }))
    },
  }
}
