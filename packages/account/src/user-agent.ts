/**
 * A device's name from its User-Agent: the browser and the operating system, as people
 * call them ("Firefox on Windows"). Enough for a session list; not a fingerprint. The
 * parsing is ua-parser-js's (its 1.x line, MIT): User-Agent strings are a moving target
 * best left to a library that follows them.
 * @module
 */
import UAParser from "ua-parser-js"

/** What a User-Agent names. `undefined` parts were not recognized. */
export interface Device {
  browser?: string
  os?: string
  mobile: boolean
}

/** Names people know for what ua-parser-js calls otherwise (its names are mostly right as they are). */
const BROWSER_NAMES: Readonly<Record<string, string>> = {
  "Mobile Safari": "Safari",
  "Chrome Headless": "Chrome",
  "Chrome WebView": "Chrome",
  "Mobile Firefox": "Firefox",
  "Opera Mobi": "Opera",
  "Opera Touch": "Opera",
}
const SYSTEM_NAMES: Readonly<Record<string, string>> = { "Mac OS": "macOS", "Chromium OS": "ChromeOS" }

/** The browser and system `userAgent` names; a header longer than 1 KiB is not read past it. */
export function parseUserAgent(userAgent: string | null | undefined): Device {
  const ua = (userAgent ?? "").slice(0, 1024)
  const parsed = new UAParser(ua).getResult()
  const browserName = parsed.browser.name
  const browser = browserName && (BROWSER_NAMES[browserName] ?? browserName)
  // An iPhone or iPad is named as the device, as people say it ("Safari on iPhone").
  const model = parsed.device.vendor === "Apple" && (parsed.device.model === "iPhone" || parsed.device.model === "iPad") ? parsed.device.model : undefined
  const osName = parsed.os.name
  const os = model ?? (osName && (SYSTEM_NAMES[osName] ?? osName))
  const mobile = parsed.device.type === "mobile" || parsed.device.type === "tablet" || /\bMobile\b/.test(ua)
  return { ...(browser && { browser }), ...(os && { os }), mobile }
}
