/**
 * Issue #15: Auth.js's own adapter packages (@auth/pg-adapter, @auth/unstorage-adapter,
 * @auth/drizzle-adapter), installed from npm and used unchanged, run
 * through the conformance suite and through Portcullis's flows (`Auth()`): an email
 * magic-link sign-in ending in a database session, a session read, a sign-out that
 * deletes the row, and credentials with database sessions.
 *
 * The conformance specs an Auth.js adapter does not meet are declared as known
 * limitations, with the reason; docs/adapters.md lists them.
 */
import { randomBytes } from "node:crypto"
import pg from "pg"
import { describe, expect } from "vitest"
import { createStorage, type Storage } from "unstorage"
import memoryDriver from "unstorage/drivers/memory"
import redisDriver from "unstorage/drivers/redis"
import PostgresAdapter from "@auth/pg-adapter"
import { DrizzleAdapter } from "@auth/drizzle-adapter"
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres"
import { drizzle as drizzleSqlJs } from "drizzle-orm/sql-js"
import initSqlJs from "sql.js"
import { UnstorageAdapter as AuthjsUnstorageAdapter } from "@auth/unstorage-adapter"
import {
  postgresService, redisAvailable, redisService, runAdapterConformance, serviceAvailable,
} from "@portcullis/adapter-test"
import { flows } from "./flows.js"

// ---------------------------------------------------------------------------------------
// @auth/pg-adapter on a throwaway database with Auth.js's documented schema.

/**
 * Auth.js's PostgreSQL schema (authjs.dev, "PostgreSQL Adapter", Schema), as documented:
 * serial integer ids, no unique constraints on email or on provider accounts.
 */
const AUTHJS_PG_SCHEMA = `
  CREATE TABLE verification_token (
    identifier TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    token TEXT NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE accounts (
    id SERIAL,
    "userId" INTEGER NOT NULL,
    type VARCHAR(255) NOT NULL,
    provider VARCHAR(255) NOT NULL,
    "providerAccountId" VARCHAR(255) NOT NULL,
    refresh_token TEXT,
    access_token TEXT,
    expires_at BIGINT,
    id_token TEXT,
    scope TEXT,
    session_state TEXT,
    token_type TEXT,
    PRIMARY KEY (id)
  );
  CREATE TABLE sessions (
    id SERIAL,
    "userId" INTEGER NOT NULL,
    expires TIMESTAMPTZ NOT NULL,
    "sessionToken" VARCHAR(255) NOT NULL,
    PRIMARY KEY (id)
  );
  CREATE TABLE users (
    id SERIAL,
    name VARCHAR(255),
    email VARCHAR(255),
    "emailVerified" TIMESTAMPTZ,
    image TEXT,
    PRIMARY KEY (id)
  );
`

const pgService = postgresService()
const postgres = await serviceAvailable(pgService, async () => {
  const client = new pg.Client({ connectionString: pgService.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

/** Creates a database of its own on the test server, with `schema`; `close` drops it. */
async function openAuthjsPostgres(schema = AUTHJS_PG_SCHEMA): Promise<{ pool: pg.Pool; close(): Promise<void> }> {
  const name = `portcullis_authjs_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: pgService.url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(pgService.url)
  url.pathname = `/${name}`
  const pool = new pg.Pool({ connectionString: url.toString(), max: 5 })
  // Teardown drops the database WITH (FORCE), which terminates any connection still open
  // (57P01). On a loaded machine a client can still be closing then; its 'error' event
  // must not become an unhandled error that fails the whole run.
  pool.on("error", () => {})
  await pool.query(schema)
  return {
    pool,
    async close() {
      await pool.end()
      const again = new pg.Client({ connectionString: pgService.url })
      await again.connect()
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await again.end()
    },
  }
}

/** The conformance specs about passkeys: an adapter without authenticator methods fails them all. */
const AUTHENTICATOR_SPECS = [
  "creates and reads back an authenticator",
  "keeps null transports and a false credentialBackedUp",
  "returns null for an unknown credential",
  "treats credential ids case-sensitively (they are base64)",
  "throws on a duplicate credentialID",
  "lists a user's authenticators",
  "lists [] for an unknown user",
  "updates the counter, up to the WebAuthn maximum (2^32 - 1)",
  "throws when updating the counter of an unknown credential",
  "removes the user with their accounts, sessions and authenticators",
  "removes an unverified passkey sign-up completely: several sessions, its webauthn accounts and authenticators (T67)",
]

const NO_GET_ACCOUNT = "has no getAccount"

/** What @auth/pg-adapter 1.11.3 with Auth.js's documented schema does not do (docs/adapters.md). */
const PG_LIMITATIONS: Record<string, string> = {
  "has every adapter method": "no getAccount and no authenticator methods (no passkeys)",
  ...Object.fromEntries(AUTHENTICATOR_SPECS.map((title) => [title, "no authenticator methods"])),
  "returns the created user with its fields": "ignores the id it is given: users.id is SERIAL, so ids are generated integers",
  "rejects a second user with the same email": "the documented schema has no UNIQUE constraint on users.email",
  "rejects linking a provider account that is already linked": "the documented schema has no UNIQUE constraint on (provider, providerAccountId)",
  "round-trips every token field, expires_at as a number": NO_GET_ACCOUNT,
  "leaves optional token fields absent (null or undefined) when not given": NO_GET_ACCOUNT,
  "returns null for an unknown account": NO_GET_ACCOUNT,
  "needs both provider and providerAccountId to match": NO_GET_ACCOUNT,
  "keeps the same providerAccountId on different providers apart (distinct users)": NO_GET_ACCOUNT,
  "removes the link but not the user": NO_GET_ACCOUNT,
  "returns the merged session and persists it": "updateSession persists but returns undefined (UPDATE without RETURNING)",
}

postgres.describe("@auth/pg-adapter", () => {
  const state = { db: undefined as Awaited<ReturnType<typeof openAuthjsPostgres>> | undefined }
  runAdapterConformance("@auth/pg-adapter", {
    setup: async () => {
      state.db = await openAuthjsPostgres()
    },
    adapter: () => PostgresAdapter(state.db!.pool),
    teardown: () => state.db!.close(),
    knownLimitations: PG_LIMITATIONS,
  })

  flows("@auth/pg-adapter", async () => {
    const db = await openAuthjsPostgres()
    return {
      adapter: PostgresAdapter(db.pool),
      rawSession: async (token) => (await db.pool.query(`SELECT * FROM sessions WHERE "sessionToken" = $1`, [token])).rows[0] ?? null,
      close: () => db.close(),
    }
  })
})

// ---------------------------------------------------------------------------------------
// @auth/unstorage-adapter on unstorage's memory driver and on its Redis driver.

/** What @auth/unstorage-adapter 2.11.2 does not do (docs/adapters.md). */
const UNSTORAGE_LIMITATIONS: Record<string, string> = {
  "returns the created user with its fields": "ignores the id it is given and stores a new crypto.randomUUID()",
  "rejects a second user with the same email": "no uniqueness check: the email index is overwritten",
  "moves the email lookup when the email changes": "updateUser leaves the old email index pointing at the user",
  "rejects linking a provider account that is already linked": "no uniqueness check: the account is overwritten",
  "throws on a duplicate credentialID": "no uniqueness check: the authenticator is overwritten",
  "is atomic: of 25 concurrent uses exactly one gets the token": "useVerificationToken is getItem then removeItem, not atomic",
  "removes the user with their accounts, sessions and authenticators": "deleteUser leaves authenticators behind",
  "removes an unverified passkey sign-up completely: several sessions, its webauthn accounts and authenticators (T67)":
    "deleteUser tracks one account and one session per user and leaves authenticators behind",
  "leaves other users' records alone": "deleteUser throws (unstorage: Invalid key: null) for a user with no session or no account",
  "frees the email for a new user": "deleteUser throws (unstorage: Invalid key: null) for a user with no session or no account",
}

/** Auth.js's default key for a session record (`sessionKeyPrefix` + token). */
const authjsSessionKey = (token: string) => `user:session:${token}`

describe("@auth/unstorage-adapter (memory driver)", () => {
  const storage = createStorage({ driver: memoryDriver() })
  runAdapterConformance("@auth/unstorage-adapter (memory)", {
    adapter: () => AuthjsUnstorageAdapter(storage),
    knownLimitations: UNSTORAGE_LIMITATIONS,
  })

  flows("@auth/unstorage-adapter (memory)", async () => {
    const storage = createStorage({ driver: memoryDriver() })
    return {
      adapter: AuthjsUnstorageAdapter(storage),
      rawSession: (token) => storage.getItem(authjsSessionKey(token)),
      close: () => storage.dispose(),
    }
  })
})

const redis = await redisAvailable()
const redisUrl = redisService().url

/** A Redis-backed storage under a random base; `close` deletes every key under it. */
function redisStorage(): Storage {
  const base = `portcullis-test:authjs-unstorage:${randomBytes(4).toString("hex")}`
  return createStorage({ driver: redisDriver({ url: redisUrl, base, maxRetriesPerRequest: 1 }) })
}
async function closeRedisStorage(storage: Storage) {
  await storage.clear()
  expect(await storage.getKeys()).toEqual([])
  await storage.dispose()
}

redis.describe("@auth/unstorage-adapter (Redis driver)", () => {
  const state = { storage: undefined as Storage | undefined }
  runAdapterConformance("@auth/unstorage-adapter (redis)", {
    setup: async () => {
      state.storage = redisStorage()
    },
    adapter: () => AuthjsUnstorageAdapter(state.storage!),
    teardown: () => closeRedisStorage(state.storage!),
    knownLimitations: UNSTORAGE_LIMITATIONS,
  })

  flows("@auth/unstorage-adapter (redis)", async () => {
    const storage = redisStorage()
    return {
      adapter: AuthjsUnstorageAdapter(storage),
      rawSession: (token) => storage.getItem(authjsSessionKey(token)),
      close: () => closeRedisStorage(storage),
    }
  })
})

// ---------------------------------------------------------------------------------------
// @auth/drizzle-adapter with its default tables, on PostgreSQL (node-postgres) and on
// SQLite (sql.js, SQLite compiled to WebAssembly, in memory).

/** The default PostgreSQL tables of Auth.js's Drizzle adapter (authjs.dev, "Drizzle ORM Adapter"), as SQL. */
const DRIZZLE_PG_SCHEMA = `
  CREATE TABLE "user" (
    id TEXT PRIMARY KEY,
    name TEXT,
    email TEXT UNIQUE,
    "emailVerified" TIMESTAMP,
    image TEXT
  );
  CREATE TABLE account (
    "userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    provider TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL,
    refresh_token TEXT,
    access_token TEXT,
    expires_at INTEGER,
    token_type TEXT,
    scope TEXT,
    id_token TEXT,
    session_state TEXT,
    PRIMARY KEY (provider, "providerAccountId")
  );
  CREATE TABLE session (
    "sessionToken" TEXT PRIMARY KEY,
    "userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    expires TIMESTAMP NOT NULL
  );
  CREATE TABLE "verificationToken" (
    identifier TEXT NOT NULL,
    token TEXT NOT NULL,
    expires TIMESTAMP NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE authenticator (
    "credentialID" TEXT NOT NULL UNIQUE,
    "userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    "providerAccountId" TEXT NOT NULL,
    "credentialPublicKey" TEXT NOT NULL,
    counter INTEGER NOT NULL,
    "credentialDeviceType" TEXT NOT NULL,
    "credentialBackedUp" BOOLEAN NOT NULL,
    transports TEXT,
    PRIMARY KEY ("userId", "credentialID")
  );
`

/** The same tables for SQLite: dates are integers (milliseconds), booleans 0/1. */
const DRIZZLE_SQLITE_SCHEMA = `
  CREATE TABLE user (
    id TEXT PRIMARY KEY,
    name TEXT,
    email TEXT UNIQUE,
    emailVerified INTEGER,
    image TEXT
  );
  CREATE TABLE account (
    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    provider TEXT NOT NULL,
    providerAccountId TEXT NOT NULL,
    refresh_token TEXT,
    access_token TEXT,
    expires_at INTEGER,
    token_type TEXT,
    scope TEXT,
    id_token TEXT,
    session_state TEXT,
    PRIMARY KEY (provider, providerAccountId)
  );
  CREATE TABLE session (
    sessionToken TEXT PRIMARY KEY,
    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    expires INTEGER NOT NULL
  );
  CREATE TABLE verificationToken (
    identifier TEXT NOT NULL,
    token TEXT NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (identifier, token)
  );
  CREATE TABLE authenticator (
    credentialID TEXT NOT NULL UNIQUE,
    userId TEXT NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    providerAccountId TEXT NOT NULL,
    credentialPublicKey TEXT NOT NULL,
    counter INTEGER NOT NULL,
    credentialDeviceType TEXT NOT NULL,
    credentialBackedUp INTEGER NOT NULL,
    transports TEXT,
    PRIMARY KEY (userId, credentialID)
  );
`

/** What @auth/drizzle-adapter 1.11.3 with its default tables does not do (docs/adapters.md). */
const DRIZZLE_SQLITE_LIMITATIONS: Record<string, string> = {
  "returns the created user with its fields": "createUser drops the id it is given; the table default makes a new crypto.randomUUID()",
}
const DRIZZLE_PG_LIMITATIONS: Record<string, string> = {
  ...DRIZZLE_SQLITE_LIMITATIONS,
  "updates the counter, up to the WebAuthn maximum (2^32 - 1)": "authenticator.counter is INTEGER (int4), which stops at 2^31 - 1",
}

postgres.describe("@auth/drizzle-adapter (PostgreSQL)", () => {
  const state = { db: undefined as Awaited<ReturnType<typeof openAuthjsPostgres>> | undefined }
  runAdapterConformance("@auth/drizzle-adapter (pg)", {
    setup: async () => {
      state.db = await openAuthjsPostgres(DRIZZLE_PG_SCHEMA)
    },
    adapter: () => DrizzleAdapter(drizzlePg(state.db!.pool)),
    teardown: () => state.db!.close(),
    knownLimitations: DRIZZLE_PG_LIMITATIONS,
  })

  flows("@auth/drizzle-adapter (pg)", async () => {
    const db = await openAuthjsPostgres(DRIZZLE_PG_SCHEMA)
    return {
      adapter: DrizzleAdapter(drizzlePg(db.pool)),
      rawSession: async (token) => (await db.pool.query(`SELECT * FROM session WHERE "sessionToken" = $1`, [token])).rows[0] ?? null,
      close: () => db.close(),
    }
  })
})

/** An in-memory SQLite database (sql.js) with the Drizzle adapter's tables. */
async function openDrizzleSqlite() {
  const SQL = await initSqlJs()
  const database = new SQL.Database()
  // SQLite enforces REFERENCES ... ON DELETE CASCADE only with foreign keys on; the
  // adapter's deleteUser relies on the cascade.
  database.exec("PRAGMA foreign_keys = ON")
  database.exec(DRIZZLE_SQLITE_SCHEMA)
  return {
    database,
    adapter: DrizzleAdapter(drizzleSqlJs(database)),
    rawSession(token: string) {
      const statement = database.prepare("SELECT * FROM session WHERE sessionToken = ?", [token])
      try {
        return statement.step() ? statement.getAsObject() : null
      } finally {
        statement.free()
      }
    },
  }
}

describe("@auth/drizzle-adapter (SQLite)", () => {
  const state = { db: undefined as Awaited<ReturnType<typeof openDrizzleSqlite>> | undefined }
  runAdapterConformance("@auth/drizzle-adapter (sqlite)", {
    setup: async () => {
      state.db = await openDrizzleSqlite()
    },
    adapter: () => state.db!.adapter,
    teardown: async () => state.db!.database.close(),
    knownLimitations: DRIZZLE_SQLITE_LIMITATIONS,
  })

  flows("@auth/drizzle-adapter (sqlite)", async () => {
    const db = await openDrizzleSqlite()
    return {
      adapter: db.adapter,
      rawSession: async (token) => db.rawSession(token),
      close: async () => db.database.close(),
    }
  })
})
