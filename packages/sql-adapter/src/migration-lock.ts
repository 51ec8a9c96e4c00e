/**
 * Kysely's migrator with a lock that holds behind a transaction pooler.
 *
 * On PostgreSQL, Kysely serialises migrators with a session-level advisory lock taken in
 * its own statement, before the migrations' transaction, and released in another. Behind
 * PgBouncer in transaction pooling mode those three land on different server connections:
 * the lock is released on a connection that does not hold it, stays held on one that goes
 * back to the pool (for every client of the pooler, until PgBouncer restarts), and the
 * other instances starting at the same moment are not held off at all and collide on
 * `CREATE TABLE` ("duplicate key value violates unique constraint pg_type_typname_nsp_index").
 *
 * Here the whole run — Kysely's own setup (its tables) included — is one transaction that
 * first takes a transaction-scoped advisory lock (`pg_advisory_xact_lock`), which PostgreSQL
 * frees at COMMIT or ROLLBACK whatever happens to the client. Kysely then runs inside that
 * transaction through a dialect whose lock and transaction steps are no-ops, since the
 * transaction and the lock around it are already ours. MySQL and SQLite keep Kysely's
 * migrator as it is (no transaction pooler, and MySQL has no transactional DDL).
 * @module
 */
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  Kysely,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type Transaction,
} from "kysely"
import { Migrator, type MigrationResultSet, type MigratorProps } from "kysely/migration"
import type { SqlDialect } from "./tables.js"

/**
 * The first key of every Portcullis migration lock (`pg_advisory_xact_lock(int, int)`); the
 * second is a hash of the migration table, so separate schemas (prefixes, extensions) do not
 * wait for each other.
 */
const LOCK_CLASS = 0x50_43_4d_47 // "PCMG"

/**
 * Runs `props`' migrations to the latest, as `new Migrator({ db, ...props }).migrateToLatest()`
 * does, with a lock that holds when several instances start at once, also behind PgBouncer
 * in transaction pooling mode (PostgreSQL: one transaction under `pg_advisory_xact_lock`).
 * Like Kysely's, it does not throw: the error is in the result.
 *
 * @example
 * ```ts
 * const { error, results } = await migrateUnderLock(db, "postgres", {
 *   provider: { getMigrations: async () => myMigrations },
 *   migrationTableName: "myapp_migrations",
 *   migrationLockTableName: "myapp_migrations_lock",
 * })
 * ```
 */
export async function migrateUnderLock(db: Kysely<any>, dialect: SqlDialect, props: Omit<MigratorProps, "db">): Promise<MigrationResultSet> {
  if (dialect !== "postgres") return new Migrator({ ...props, db }).migrateToLatest()
  const table = props.migrationTableName ?? "kysely_migration"
  const run = async (trx: Transaction<any>): Promise<MigrationResultSet> => {
    await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_CLASS)}, hashtext(${table}))`.execute(trx)
    return new Migrator({ ...props, db: inside(trx) }).migrateToLatest()
  }
  // The app's own transaction: the lock lasts until the app commits or rolls it back.
  if (db.isTransaction) return run(db as Transaction<any>)
  try {
    return await db.transaction().execute(async (trx) => {
      const result = await run(trx)
      // Thrown so the transaction rolls back: every migration of the run, or none.
      if (result.error !== undefined) throw new RunFailed(result)
      return result
    })
  } catch (error) {
    if (error instanceof RunFailed) return error.result
    return { error }
  }
}

/** Carries a failed run's result out of the transaction callback. */
class RunFailed extends Error {
  constructor(readonly result: MigrationResultSet) {
    super("migration run failed")
  }
}

/** A Kysely whose every query runs in `trx`; its transactions and migration lock are no-ops. */
function inside(trx: Transaction<any>): Kysely<any> {
  return new Kysely<any>({
    dialect: {
      createAdapter: () => new LockHeldAdapter(),
      createDriver: () => new InTransactionDriver(trx),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  })
}

/** PostgreSQL, with the migration lock already held by the surrounding transaction. */
class LockHeldAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

/** Hands out the surrounding transaction as the only connection; begin/commit/rollback are its owner's. */
class InTransactionDriver implements Driver {
  readonly #connection: DatabaseConnection

  constructor(trx: Transaction<any>) {
    this.#connection = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => trx.executeQuery<R>(query as CompiledQuery<R>),
      // eslint-disable-next-line require-yield
      async *streamQuery() {
        throw new Error("streaming is not used by the migrator")
      },
    }
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  // A failed migration throws on to migrateUnderLock, whose transaction rolls back.
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}
