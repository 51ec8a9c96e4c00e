/**
 * Two instances, one store: two Node processes, each with its own SCIM handler, over the
 * store, accounts and memberships of this process (reached over IPC, as instances reach one
 * database). Fifty creates of one userName split between them make one user; forty member
 * additions to one group split between them all land; a deactivation in one is what the
 * other reads.
 */
import { fork, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ScimRequest } from "../../src/scim/index.js"
import { connectionOf, PATCH_OP, USER_SCHEMA, world, type World } from "./world.js"

const script = fileURLToPath(new URL("./fixtures/scim-instance.ts", import.meta.url))

let w: World
let token: string
const instances: ChildProcess[] = []

/** Serves an instance's calls of the shared store and directory. */
function serve(child: ChildProcess): void {
  child.on("message", async (message: any) => {
    if (!message.rpc) return
    const { id, target, method, args } = message.rpc as { id: number; target: string; method: string; args: unknown[] }
    try {
      const object: any = target === "store" ? w.store : w.directory(target.slice("directory:".length))
      const result = await object[method](...args)
      child.send({ rpcAnswer: { id, result } })
    } catch (error) {
      child.send({ rpcAnswer: { id, error: (error as Error).message } })
    }
  })
}

function start(): Promise<ChildProcess> {
  const child = fork(script, [], { execArgv: ["--no-warnings"], serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] })
  serve(child)
  return new Promise((resolve, reject) => {
    child.once("message", (m: any) => (m.ready ? resolve(child) : reject(new Error("unexpected first message"))))
    child.once("exit", (code) => reject(new Error(`instance exited (${code})`)))
  })
}

let asked = 0
function ask(child: ChildProcess, method: ScimRequest["method"], path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const id = asked++
  const url = new URL(`https://app.example/auth/sso/scim/${connectionOf("org-a")}/v2${path}`)
  const query = Object.fromEntries(url.searchParams)
  const request = { authorization: `Bearer ${token}`, connectionId: connectionOf("org-a"), method, path: url.pathname.split("/").slice(6), query, body, baseUrl: `https://app.example/auth/sso/scim/${connectionOf("org-a")}/v2` }
  return new Promise((resolve) => {
    const onMessage = (m: any) => {
      if (m.id !== id || !m.response) return
      child.off("message", onMessage)
      resolve(m.response)
    }
    child.on("message", onMessage)
    child.send({ id, request })
  })
}

beforeAll(async () => {
  w = world()
  token = (await w.token("org-a")).token
  instances.push(await start(), await start())
}, 30_000)
afterAll(() => {
  for (const child of instances) child.kill()
})

const user = (userName: string) => ({ schemas: [USER_SCHEMA], userName, emails: [{ value: userName, type: "work", primary: true }] })

describe("two instances on one store", () => {
  it("make one user of fifty creates of one userName split between them", async () => {
    const [a, b] = instances as [ChildProcess, ChildProcess]
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(i % 2 ? a : b, "POST", "/Users", user("ada@acme.com"))))
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(49)
    expect(await w.store.listScimUsers("org-a")).toHaveLength(1)
    expect(w.members.size).toBe(1)
  }, 30_000)

  it("keep all forty member additions to one group split between them", async () => {
    const [a, b] = instances as [ChildProcess, ChildProcess]
    const ids: string[] = []
    for (let i = 0; i < 40; i++) ids.push((await ask(a, "POST", "/Users", user(`u${i}@acme.com`))).body.id)
    const gid = (await ask(b, "POST", "/Groups", { displayName: "Portcullis Admins" })).body.id
    const results = await Promise.all(ids.map((id, i) => ask(i % 2 ? a : b, "PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: id }] }] })))
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200))
    expect((await w.store.getScimGroup("org-a", gid))!.members.sort()).toEqual([...ids].sort())
    expect(ids.every((id) => w.members.get(`org-a\n${id}`) === "admin")).toBe(true)
  }, 30_000)

  it("read in one what the other deactivated, with the sessions ended", async () => {
    const [a, b] = instances as [ChildProcess, ChildProcess]
    const id = (await ask(a, "POST", "/Users", user("grace@acme.com"))).body.id
    const session = await w.signIn(id, "org-a")
    expect((await ask(a, "PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })).status).toBe(200)
    expect((await ask(b, "GET", `/Users/${id}`)).body.active).toBe(false)
    expect(await w.store.sessionEnded(session)).toBe(true)
  }, 30_000)
})
