import { describe, expect, it } from "vitest"
import { parseUserAgent } from "../src/user-agent.js"

describe("a session's device, named from its User-Agent (ua-parser-js)", () => {
  it.each([
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", { browser: "Firefox", os: "Windows", mobile: false }],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", { browser: "Safari", os: "macOS", mobile: false }],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", { browser: "Safari", os: "iPhone", mobile: true }],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", { browser: "Chrome", os: "Android", mobile: true }],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", { browser: "Edge", os: "Windows", mobile: false }],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", { browser: "Chrome", os: "Linux", mobile: false }],
  ])("%s", (ua, device) => {
    expect(parseUserAgent(ua)).toEqual(device)
  })

  it("names nothing it does not recognise, and reads no further than 1 KiB of a hostile header", () => {
    expect(parseUserAgent(undefined)).toEqual({ mobile: false })
    expect(parseUserAgent("")).toEqual({ mobile: false })
    expect(parseUserAgent(`${"x".repeat(1024)} Firefox/133.0`)).toEqual({ mobile: false })
  })
})
