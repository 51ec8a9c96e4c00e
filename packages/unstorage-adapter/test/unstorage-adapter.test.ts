import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { createStorage, type Storage } from "unstorage"
import memoryDriver from "unstorage/drivers/memory"
import fsDriver from "unstorage/drivers/fs"
import redisDriver from "unstorage/drivers/redis"
import {
  daysFromNow, makeAccount, makeAuthenticator, makeSession, makeUser, makeVerificationToken, redisAvailable, redisService, runAdapterConformance,
} from "@portcullis/adapter-test"
import type { Adapter } from "@portcullis/core/adapters"
import { UnstorageAdapter, unstorageKeys } from "@portcullis/unstorage-adapter"
import { flows } from "../../adapter-test/test/flows.js"

/** Direct reads of the storage for the suite's "really gone" checks. */
function rawStorage(storage: () => Storage, prefix: string) {
  const k = unstorageKeys(prefix)
  return {
    user: async (id: string) => storage().getItem(await k.user(id)),
    account: async (provider: string, id: string) => storage().getItem(await k.account(provider, id)),
    session: async (token: string) => storage().getItem(await k.session(token)),
    verificationToken: async (identifier: string, token: string) => storage().getItem(await k.verificationToken(identifier, token)),
    authenticator: async (credentialID: string) => storage().getItem(await k.authenticator(credentialID)),
  }
}

describe("memory driver", () => {
  const storage = createStorage({ driver: memoryDriver() })
  runAdapterConformance("UnstorageAdapter (memory)", {
    adapter: () => UnstorageAdapter(storage),
    db: rawStorage(() => storage, "portcullis"),
    passwords: true,
  })
})

describe("memory driver through Auth()", () => {
  flows("UnstorageAdapter (memory)", async () => {
    const storage = createStorage({ driver: memoryDriver() })
    const keys = unstorageKeys()
    return {
      adapter: UnstorageAdapter(storage),
      rawSession: async (token) => storage.getItem(await keys.session(token)),
      close: () => storage.dispose(),
    }
  })
})

describe("filesystem driver", () => {
  const state = { dir: "", storage: undefined as Storage | undefined }
  const storage = () => state.storage!
  runAdapterConformance("UnstorageAdapter (fs)", {
    setup: async () => {
      state.dir = mkdtempSync(join(tmpdir(), "portcullis-unstorage-"))
      state.storage = createStorage({ driver: fsDriver({ base: state.dir }) })
    },
    adapter: () => UnstorageAdapter(storage(), { prefix: "auth" }),
    passwords: true,
    teardown: async () => {
      await state.storage?.dispose()
      rmSync(state.dir, { recursive: true, force: true })
    },
    db: rawStorage(storage, "auth"),
  })
})

const gate = await redisAvailable()
const redisUrl = redisService().url

/** A Redis-backed storage under a random base; `close` deletes every key under it. */
function redisStorage() {
  const base = `portcullis-test:unstorage:${randomBytes(4).toString("hex")}`
  const state = { storage: undefined as Storage | undefined }
  const storage = () => state.storage ?? (state.storage = createStorage({ driver: redisDriver({ url: redisUrl, base, maxRetriesPerRequest: 1 }) }))
  return {
    base,
    storage,
    async close() {
      await storage().clear()
      expect(await storage().getKeys()).toEqual([])
      await storage().dispose()
    },
  }
}

gate.describe("Redis driver", () => {
  const redis = redisStorage()
  runAdapterConformance("UnstorageAdapter (redis)", {
    adapter: () => UnstorageAdapter(redis.storage()),
    teardown: () => redis.close(),
    db: rawStorage(redis.storage, "portcullis"),
    passwords: true,
  })

  flows("UnstorageAdapter (redis)", async () => {
    const flowRedis = redisStorage()
    const keys = unstorageKeys()
    return {
      adapter: UnstorageAdapter(flowRedis.storage()),
      rawSession: async (token) => flowRedis.storage().getItem(await keys.session(token)),
      close: () => flowRedis.close(),
    }
  })

  describe("single-use tokens across processes", () => {
    const shared = redisStorage()
    afterAll(() => shared.close())

    it("uses GETDEL: of two adapters (two app instances) racing on one link, exactly one wins", async () => {
      // Separate storages and clients, as two servers would have; the per-process queue
      // cannot help here, only the driver's atomic GETDEL can.
      const other = createStorage({ driver: redisDriver({ url: redisUrl, base: shared.base, maxRetriesPerRequest: 1 }) })
      try {
        const [one, two] = [UnstorageAdapter(shared.storage()), UnstorageAdapter(other)] as Required<Adapter>[]
        for (let round = 0; round < 20; round++) {
          const input = makeVerificationToken()
          await one!.createVerificationToken(input)
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => (i % 2 ? one! : two!).useVerificationToken({ identifier: input.identifier, token: input.token })),
          )
          expect(results.filter((r) => r != null)).toHaveLength(1)
        }
      } finally {
        await other.dispose()
      }
    })
  })
})

gate.describe("Redis driver mounted under a base, next to another driver", () => {
  const base = `portcullis-test:unstorage:${randomBytes(4).toString("hex")}`
  const storage = createStorage({ driver: memoryDriver() })
  storage.mount("auth", redisDriver({ url: redisUrl, base, maxRetriesPerRequest: 1 }))
  afterAll(async () => {
    await storage.clear("auth")
    await storage.dispose()
  })

  it("finds the Redis key behind the mount for GETDEL, and the token is gone after one use", async () => {
    const adapter = UnstorageAdapter(storage, { prefix: "auth:portcullis" }) as Required<Adapter>
    const input = makeVerificationToken()
    await adapter.createVerificationToken(input)
    const key = await unstorageKeys("auth:portcullis").verificationToken(input.identifier, input.token)
    type Client = { get(key: string): Promise<string | null>; getdel(key: string): Promise<string | null> }
    const client = storage.getMount(key).driver.getInstance!() as Client
    const redisKey = `${base}:${key.slice("auth:".length)}`
    expect(await client.get(redisKey)).not.toBeNull()
    const getdel = client.getdel.bind(client)
    const taken: string[] = []
    client.getdel = (k) => (taken.push(k), getdel(k))
    const results = await Promise.all(Array.from({ length: 5 }, () => adapter.useVerificationToken(input)))
    expect(taken).toEqual(Array(5).fill(redisKey))
    expect(results.filter((r) => r != null)).toHaveLength(1)
    expect(results.find((r) => r != null)?.expires).toEqual(input.expires)
    expect(await client.get(redisKey)).toBeNull()
  })
})

describe("UnstorageAdapter storage", () => {
  const storage = createStorage({ driver: memoryDriver() })
  const adapter = UnstorageAdapter(storage, { prefix: "app:auth:" }) as Required<Adapter>

  it("keeps every key under the prefix, with no email or token in any key", async () => {
    const user = await adapter.createUser(makeUser())
    const session = await adapter.createSession(makeSession(user.id))
    const token = makeVerificationToken({ identifier: user.email })
    await adapter.createVerificationToken(token)
    const keys = await storage.getKeys()
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      expect(key).toMatch(/^app:auth:[a-z-]+:[0-9a-f]{64}$/)
      for (const secret of [user.email, session.sessionToken, token.token]) expect(key).not.toContain(secret)
    }
  })

  it("treats an expired session as absent and deletes it on read", async () => {
    const user = await adapter.createUser(makeUser())
    const session = await adapter.createSession(makeSession(user.id, { expires: new Date(Date.now() - 1_000) }))
    expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull()
    expect(await storage.getItem(await unstorageKeys("app:auth").session(session.sessionToken))).toBeNull()
    expect(await adapter.updateSession({ sessionToken: session.sessionToken, expires: daysFromNow(1) })).toBeNull()
  })

  it("never returns an expired verification token, and deletes it", async () => {
    const token = makeVerificationToken({ expires: new Date(Date.now() - 1_000) })
    await adapter.createVerificationToken(token)
    expect(await adapter.useVerificationToken(token)).toBeNull()
    expect(await storage.getItem(await unstorageKeys("app:auth").verificationToken(token.identifier, token.token))).toBeNull()
  })

  it("keeps ids that look like numbers as strings", async () => {
    const user = await adapter.createUser(makeUser({ id: "123" }))
    expect((await adapter.getUserByEmail(user.email))?.id).toBe("123")
  })

  it("does not let records left behind by a vanished user block a new user, account or passkey", async () => {
    const gone = await adapter.createUser(makeUser())
    const account = makeAccount(gone.id)
    const passkey = makeAuthenticator(gone.id)
    await adapter.linkAccount(account)
    await adapter.createAuthenticator(passkey)
    // As if deleteUser had missed its index entries: only the user record disappears.
    await storage.removeItem(await unstorageKeys("app:auth").user(gone.id))
    expect(await adapter.getUserByAccount(account)).toBeNull()

    const next = await adapter.createUser(makeUser({ email: gone.email }))
    expect((await adapter.getUserByEmail(gone.email))?.id).toBe(next.id)
    await adapter.linkAccount({ ...account, userId: next.id })
    expect((await adapter.getUserByAccount(account))?.id).toBe(next.id)
    await adapter.createAuthenticator({ ...passkey, userId: next.id })
    expect((await adapter.getAuthenticator(passkey.credentialID))?.userId).toBe(next.id)
  })

  it("reads a session whose user is gone as no session", async () => {
    const user = await adapter.createUser(makeUser())
    const session = makeSession(user.id)
    await adapter.createSession(session)
    await storage.removeItem(await unstorageKeys("app:auth").user(user.id))
    expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull()
  })
})

describe("filesystem driver: file names and the per-process queue", () => {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-unstorage-"))
  const storage = createStorage({ driver: fsDriver({ base: dir }) })
  afterAll(async () => {
    await storage.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it("queues uses of one token across adapter instances in one process (config built per request)", async () => {
    // On the fs driver reads and deletes are real I/O, so without the queue several win.
    const input = makeVerificationToken()
    await UnstorageAdapter(storage).createVerificationToken!(input)
    const results = await Promise.all(
      Array.from({ length: 10 }, () => UnstorageAdapter(createStorage({ driver: fsDriver({ base: dir }) })).useVerificationToken!(input)),
    )
    expect(results.filter((r) => r != null)).toHaveLength(1)
  })

  it("stores emails and identifiers with `/`, `?` and `:` and a 250-character address", async () => {
    const adapter = UnstorageAdapter(storage) as Required<Adapter>
    const email = `${"a".repeat(230)}/x?y:z@example.com`
    const user = await adapter.createUser(makeUser({ email }))
    expect((await adapter.getUserByEmail(email))?.id).toBe(user.id)
    expect(await adapter.getUserByEmail(`${"a".repeat(230)}/x`)).toBeNull()
    const token = makeVerificationToken({ identifier: "webauthn-challenge:passkey/..?" })
    await adapter.createVerificationToken(token)
    expect(await adapter.useVerificationToken(token)).toMatchObject({ identifier: token.identifier })
  })
})
