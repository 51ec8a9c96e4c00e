/** Which hosts an organization admin may make the server fetch: names and public addresses only. */
import { describe, expect, it } from "vitest"
import { fetchableHost } from "../src/outbound.js"

const ok = (url: string, loopback = false) => fetchableHost(new URL(url), loopback)

describe("fetchableHost", () => {
  it("allows names and public addresses", () => {
    for (const url of ["https://idp.acme.com/metadata", "https://login.microsoftonline.com/x", "https://8.8.8.8/", "https://[2606:4700::1111]/"]) expect(ok(url), url).toBe(true)
  })

  it("refuses private, link-local, reserved and mapped addresses however written", () => {
    for (const url of [
      "https://10.0.0.1/",
      "https://169.254.169.254/",
      "https://2852039166/", // 169.254.169.254 as one number
      "https://0xa9.0xfe.0xa9.0xfe/",
      "https://172.31.255.255/",
      "https://192.168.0.1/",
      "https://100.100.100.200/",
      "https://0.0.0.0/",
      "https://[::]/",
      "https://[fe80::1]/",
      "https://[fd12:3456::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://[::ffff:a9fe:a9fe]/",
      "https://[64:ff9b::a9fe:a9fe]/",
      "https://[2002:a9fe:a9fe::1]/",
    ]) expect(ok(url), url).toBe(false)
  })

  it("refuses loopback unless allowed (outside production)", () => {
    for (const url of ["https://localhost/", "https://127.0.0.1/", "https://127.1/", "https://2130706433/", "https://[::1]/", "https://app.localhost/", "https://localhost./"]) {
      expect(ok(url, false), url).toBe(false)
    }
    expect(ok("https://localhost/", true)).toBe(true)
    expect(ok("http://127.0.0.1:8080/", true)).toBe(true)
  })
})
