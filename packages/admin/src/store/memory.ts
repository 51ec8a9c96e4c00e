import type { Ban, BanStore } from "./types.js"

/** A ban store in this process's memory: for tests and one-instance apps (bans are lost on restart). */
export class MemoryBanStore implements BanStore {
  #bans = new Map<string, Ban>()

  async ban(ban: Ban): Promise<void> {
    this.#bans.set(ban.userId, { ...ban })
  }

  async unban(userId: string): Promise<boolean> {
    const live = await this.get(userId)
    this.#bans.delete(userId)
    return live !== null
  }

  async get(userId: string, now = new Date()): Promise<Ban | null> {
    const found = this.#bans.get(userId)
    if (!found) return null
    if (found.expires && found.expires.getTime() <= now.getTime()) return null
    return { ...found }
  }

  async many(userIds: readonly string[], now = new Date()): Promise<Map<string, Ban>> {
    const out = new Map<string, Ban>()
    for (const id of userIds) {
      const ban = await this.get(id, now)
      if (ban) out.set(id, ban)
    }
    return out
  }
}
