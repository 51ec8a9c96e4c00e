/**
 * The words of a notice email: the kind's subject and heading, and the facts — when, and from
 * which device — filled in as plain text before the sender renders it like any other email.
 * @module
 */
import type { EmailMessages, Messages, NoticeMessages } from "../i18n/catalog.js"
import { fillText } from "../i18n/format.js"
import type { NoticeDevice, SecurityNoticeKind } from "./options.js"

// Every kind has its sentences: a kind added to the union without them fails to compile here.
type Covered = { [K in SecurityNoticeKind]: NoticeMessages["kinds"][K] }

/** "Tuesday, 1 December 2026 at 09:30:00 UTC": in the notice's language, in UTC (the user's zone is unknown). */
export function noticeTime(time: Date, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "full", timeStyle: "long", timeZone: "UTC" }).format(time)
}

function deviceName(messages: NoticeMessages, device: NoticeDevice): string {
  if (device.browser && device.os) return fillText(messages.deviceName, { browser: device.browser, os: device.os })
  return device.browser ?? device.os ?? messages.unknownDevice
}

/**
 * The notice of `kind` as {@link EmailMessages}. Only fixed names (browser, system), a
 * validated address and a formatted date go into the sentences: nothing a client wrote, and
 * never a token.
 */
export function noticeEmail(all: Messages, kind: SecurityNoticeKind, facts: { time: Date; locale: string; device?: NoticeDevice | undefined; resetLink: boolean }): EmailMessages {
  const messages = all.notice
  const kinds: Covered = messages.kinds
  const lines = [fillText(messages.when, { time: noticeTime(facts.time, facts.locale) })]
  const { device } = facts
  if (device) {
    const name = deviceName(messages, device)
    lines.push(device.ipAddress ? fillText(messages.device, { device: name, address: device.ipAddress }) : fillText(messages.deviceOnly, { device: name }))
  }
  return {
    subject: kinds[kind].subject,
    heading: kinds[kind].heading,
    button: facts.resetLink ? messages.resetButton : messages.signInButton,
    expires: lines.join(" "),
    ignore: messages.notYou,
  }
}
