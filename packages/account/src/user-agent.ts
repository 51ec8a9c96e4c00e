/**
 * A device's name from its User-Agent: the browser and the operating system, as people
 * call them ("Firefox on Windows"). Enough for a session list; not a fingerprint. Order
 * matters: Edge and Opera say "Chrome" too, Chrome says "Safari", every browser "Mozilla".
 * @module
 */

/** What a User-Agent names. `undefined` parts were not recognized. */
export interface Device {
  browser?: string
  os?: string
  mobile: boolean
}

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bCriOS\/|\b(?:Headless)?Chrome\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
]

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
]

/** The browser and system `userAgent` names; a header longer than 1 KiB is not read past it. */
export function parseUserAgent(userAgent: string | null | undefined): Device {
  const ua = (userAgent ?? "").slice(0, 1024)
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1]
  const os = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1]
  return { ...(browser && { browser }), ...(os && { os }), mobile: /\bMobile\b|\biPhone\b|\bAndroid\b/.test(ua) }
}
