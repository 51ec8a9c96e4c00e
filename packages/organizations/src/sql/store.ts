/**
 * The organization store on PostgreSQL, MySQL/MariaDB or SQLite through Kysely. Every rule
 * of the contract is kept by the database in one transaction (or one statement): the slug's
 * unique index, a conditional UPDATE that only one accept can win, owner rows locked before
 * an owner is demoted or removed.
 * @module
 */
import type { Kysely, Transaction } from "kysely"
import { retrying } from "@portcullis/sql-adapter/migrations"
import type { AcceptOutcome, AddMemberOutcome, Invitation, InvitationStatus, Membership, Organization, OrganizationStore, OwnerGuarded } from "../store/types.js"
import { isUniqueViolation } from "./errors.js"
import { organizationTables, resolveDialect, type OrganizationSqlDialect } from "./tables.js"

type Row = Record<string, unknown>

/** Options of {@link sqlOrganizationStore}. */
export interface SqlOrganizationStoreOptions {
  /** Put in front of every table name, as given to `migrateOrganizations`. Default none. */
  tablePrefix?: string
  /** Detected from the Kysely instance when not given. */
  dialect?: OrganizationSqlDialect
}

/** PostgreSQL and MySQL hand back `Date`s; SQLite the ISO 8601 text it stores. */
const toDate = (value: unknown): Date => (value instanceof Date ? new Date(value.getTime()) : new Date(String(value)))

function organizationFromRow(row: Row): Organization {
  return {
    id: String(row.id),
    name: String(row.name),
    slug: String(row.slug),
    metadata: row.metadata == null ? null : (JSON.parse(String(row.metadata)) as Record<string, unknown>),
    createdAt: toDate(row.created_at),
  }
}

function membershipFromRow(row: Row): Membership {
  return { organizationId: String(row.organization_id), userId: String(row.user_id), role: String(row.role), createdAt: toDate(row.created_at) }
}

function invitationFromRow(row: Row): Invitation {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    email: String(row.email),
    role: String(row.role),
    invitedBy: String(row.invited_by),
    tokenHash: String(row.token_hash),
    status: String(row.status) as InvitationStatus,
    expiresAt: toDate(row.expires_at),
    createdAt: toDate(row.created_at),
    acceptedBy: row.accepted_by == null ? null : String(row.accepted_by),
  }
}

const encodeMetadata = (metadata: Record<string, unknown> | null) => (metadata === null ? null : JSON.stringify(metadata))

/**
 * Creates the organization store over a Kysely instance whose schema came from
 * `migrateOrganizations` (with the same `tablePrefix`).
 *
 * @example
 * ```ts
 * import { createPostgresKysely } from "@portcullis/sql-adapter"
 * import { migrateOrganizations, sqlOrganizationStore } from "@portcullis/organizations/sql"
 *
 * const db = createPostgresKysely(process.env.DATABASE_URL!)
 * await migrateOrganizations(db)
 * const store = sqlOrganizationStore(db)
 * ```
 */
export function sqlOrganizationStore(db: Kysely<any>, options: SqlOrganizationStoreOptions = {}): OrganizationStore {
  const dialect = resolveDialect(db, options.dialect)
  const t = organizationTables(options.tablePrefix)
  const slugIndex = `${t.organizations}_slug_key`
  const isSlugTaken = (error: unknown) => isUniqueViolation(error, t.organizations, "slug", slugIndex)
  // SQLite has no row locks (and Kysely refuses FOR UPDATE there): a writer holds the whole
  // database, and on one Kysely instance transactions run one at a time.
  const locking = dialect !== "sqlite"
  /** Active marks set through this store: every 100th sweeps the expired ones of ended sessions. */
  let marksSet = 0

  const transaction = <T>(work: (trx: Transaction<any>) => Promise<T>) => retrying(() => db.transaction().execute(work))

  /**
   * Demoting (`nextRole` not `owner`) or removing (`null`) a member, in one transaction that
   * first locks the organization's owner rows: two owners demoting each other at once are
   * serialised, and the second sees that it would be the last.
   */
  function guardedChange(organizationId: string, userId: string, nextRole: string | null, expectedRole: string | undefined): Promise<OwnerGuarded> {
    return transaction(async (trx) => {
      const ownersQuery = trx.selectFrom(t.members).select("user_id").where("organization_id", "=", organizationId).where("role", "=", "owner")
      const owners = await (locking ? ownersQuery.forUpdate() : ownersQuery).execute()
      const memberQuery = trx.selectFrom(t.members).select("role").where("organization_id", "=", organizationId).where("user_id", "=", userId)
      const member = await (locking ? memberQuery.forUpdate() : memberQuery).executeTakeFirst()
      if (!member) return "missing"
      // Read under the row's lock: a role changed since the caller's check is not changed again.
      if (expectedRole !== undefined && member.role !== expectedRole) return "changed"
      if (member.role === "owner" && nextRole !== "owner" && !owners.some((o) => o.user_id !== userId)) return "last-owner"
      const target = (q: any) => q.where("organization_id", "=", organizationId).where("user_id", "=", userId)
      await (nextRole === null ? target(trx.deleteFrom(t.members)) : target(trx.updateTable(t.members).set({ role: nextRole }))).execute()
      return "ok"
    })
  }

  const selectOrganization = (q: Kysely<any> | Transaction<any>, id: string) =>
    q.selectFrom(t.organizations).selectAll().where("id", "=", id).executeTakeFirst()

  return {
    async createOrganization(organization, owner) {
      try {
        await transaction(async (trx) => {
          await trx.insertInto(t.organizations).values({
            id: organization.id,
            name: organization.name,
            slug: organization.slug,
            metadata: encodeMetadata(organization.metadata),
            created_at: organization.createdAt,
          }).execute()
          await trx.insertInto(t.members).values({ organization_id: organization.id, user_id: owner.userId, role: "owner", created_at: owner.createdAt }).execute()
        })
        return true
      } catch (error) {
        // The unique index decides, so two instances creating one slug at once cannot both win.
        if (isSlugTaken(error)) return false
        throw error
      }
    },

    async getOrganization(id) {
      const row = await selectOrganization(db, id)
      return row ? organizationFromRow(row) : null
    },

    async getOrganizationBySlug(slug) {
      const row = await db.selectFrom(t.organizations).selectAll().where("slug", "=", slug).executeTakeFirst()
      return row ? organizationFromRow(row) : null
    },

    async updateOrganization(id, patch) {
      const set: Row = {}
      if (patch.name !== undefined) set.name = patch.name
      if (patch.slug !== undefined) set.slug = patch.slug
      if (patch.metadata !== undefined) set.metadata = encodeMetadata(patch.metadata)
      try {
        return await transaction(async (trx) => {
          if (Object.keys(set).length > 0) await trx.updateTable(t.organizations).set(set).where("id", "=", id).execute()
          const row = await selectOrganization(trx, id)
          return row ? organizationFromRow(row) : null
        })
      } catch (error) {
        if (isSlugTaken(error)) return "slug-taken"
        throw error
      }
    },

    async deleteOrganization(id) {
      // Explicit deletes as well as ON DELETE CASCADE: SQLite ignores foreign keys on a
      // connection that did not turn them on.
      await transaction(async (trx) => {
        for (const table of [t.active, t.invitations, t.members]) await trx.deleteFrom(table).where("organization_id", "=", id).execute()
        await trx.deleteFrom(t.organizations).where("id", "=", id).execute()
      })
    },

    async listOrganizations(userId) {
      const rows = await db.selectFrom(`${t.members} as m`)
        .innerJoin(`${t.organizations} as o`, "o.id", "m.organization_id")
        .select(["o.id", "o.name", "o.slug", "o.metadata", "o.created_at", "m.role"])
        .where("m.user_id", "=", userId)
        .orderBy("m.created_at").orderBy("o.id")
        .execute()
      return rows.map((row) => ({ organization: organizationFromRow(row), role: String(row.role) }))
    },

    async getMembership(organizationId, userId) {
      const row = await db.selectFrom(t.members).selectAll().where("organization_id", "=", organizationId).where("user_id", "=", userId).executeTakeFirst()
      return row ? membershipFromRow(row) : null
    },

    async listMembers(organizationId) {
      const rows = await db.selectFrom(t.members).selectAll().where("organization_id", "=", organizationId)
        .orderBy("created_at").orderBy("user_id").execute()
      return rows.map(membershipFromRow)
    },

    async addMember(membership, limit) {
      try {
        return await transaction(async (trx): Promise<AddMemberOutcome> => {
          // The organization's row, locked, serialises adds to one organization: the members
          // counted below cannot grow before this insert commits.
          const organizationQuery = trx.selectFrom(t.organizations).select("id").where("id", "=", membership.organizationId)
          if (!(await (locking ? organizationQuery.forUpdate() : organizationQuery).executeTakeFirst())) return "missing"
          // A locking read: on MySQL a plain one would see the transaction's snapshot, not the latest rows.
          const membersQuery = trx.selectFrom(t.members).select("user_id").where("organization_id", "=", membership.organizationId)
          const current = await (locking ? membersQuery.forUpdate() : membersQuery).execute()
          if (current.some((m) => m.user_id === membership.userId)) return "already-member"
          if (limit !== undefined && current.length >= limit) return "full"
          await trx.insertInto(t.members).values({ organization_id: membership.organizationId, user_id: membership.userId, role: membership.role, created_at: membership.createdAt }).execute()
          return "added"
        })
      } catch (error) {
        // An accepted invitation (which takes no organization lock) added the user meanwhile.
        // (MySQL names every primary key PRIMARY.)
        if (isUniqueViolation(error, t.members, "user_id", `${t.members}_pkey`) || isUniqueViolation(error, t.members, "user_id", "PRIMARY")) return "already-member"
        throw error
      }
    },

    setRole: (organizationId, userId, role, expectedRole) => guardedChange(organizationId, userId, role, expectedRole),
    removeMember: (organizationId, userId, expectedRole) => guardedChange(organizationId, userId, null, expectedRole),

    async createInvitation(invitation) {
      await db.insertInto(t.invitations).values({
        id: invitation.id,
        organization_id: invitation.organizationId,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedBy,
        token_hash: invitation.tokenHash,
        status: invitation.status,
        expires_at: invitation.expiresAt,
        created_at: invitation.createdAt,
        accepted_by: invitation.acceptedBy ?? null,
      }).execute()
    },

    async getInvitation(id) {
      const row = await db.selectFrom(t.invitations).selectAll().where("id", "=", id).executeTakeFirst()
      return row ? invitationFromRow(row) : null
    },

    async listInvitations(organizationId, now) {
      const rows = await db.selectFrom(t.invitations).selectAll()
        .where("organization_id", "=", organizationId).where("status", "=", "pending").where("expires_at", ">", now)
        .orderBy("created_at", "desc").orderBy("id", "desc")
        .execute()
      return rows.map(invitationFromRow)
    },

    async revokeInvitation(organizationId, id) {
      const { numUpdatedRows } = await db.updateTable(t.invitations).set({ status: "revoked" })
        .where("id", "=", id).where("organization_id", "=", organizationId).where("status", "=", "pending")
        .executeTakeFirst()
      return numUpdatedRows > 0n
    },

    acceptInvitation(id, userId, now) {
      return transaction(async (trx): Promise<AcceptOutcome> => {
        // The conditional UPDATE is the single use: concurrent accepts queue on the row's lock,
        // and after the first commits, the others' condition no longer holds.
        const { numUpdatedRows } = await trx.updateTable(t.invitations).set({ status: "accepted", accepted_by: userId })
          .where("id", "=", id).where("status", "=", "pending").where("expires_at", ">", now)
          .executeTakeFirst()
        const invitation = await trx.selectFrom(t.invitations).select(["organization_id", "role"]).where("id", "=", id).executeTakeFirst()
        if (numUpdatedRows === 0n) return invitation ? "unavailable" : "missing"
        if (!invitation) throw new Error(`invitation ${id} vanished inside its own transaction`)
        const insert = trx.insertInto(t.members).values({ organization_id: invitation.organization_id, user_id: userId, role: invitation.role, created_at: now })
        // An existing membership keeps its role; the invitation is used up all the same.
        const { numInsertedOrUpdatedRows } = await (dialect === "mysql"
          ? insert.ignore()
          : insert.onConflict((oc) => oc.columns(["organization_id", "user_id"]).doNothing())
        ).executeTakeFirst()
        return (numInsertedOrUpdatedRows ?? 0n) > 0n ? "accepted" : "already-member"
      })
    },

    async getActiveOrganization(sessionKey) {
      const row = await db.selectFrom(t.active).select("organization_id").where("session_key", "=", sessionKey).where("expires_at", ">", new Date()).executeTakeFirst()
      return row ? String(row.organization_id) : null
    },

    async setActiveOrganization(sessionKey, organizationId, expires) {
      if (organizationId === null) {
        await db.deleteFrom(t.active).where("session_key", "=", sessionKey).execute()
        return
      }
      const insert = db.insertInto(t.active).values({ session_key: sessionKey, organization_id: organizationId, expires_at: expires })
      const changes = { organization_id: organizationId, expires_at: expires }
      await (dialect === "mysql" ? insert.onDuplicateKeyUpdate(changes) : insert.onConflict((oc) => oc.column("session_key").doUpdateSet(changes))).execute()
      if (++marksSet % 100 === 0) await db.deleteFrom(t.active).where("expires_at", "<=", new Date()).execute()
    },
  }
}
