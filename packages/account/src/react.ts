/**
 * `@portcullis/account/react`: the account center as React components over the browser
 * client — `<AccountCenter/>` with every section, or each section on its own
 * (`<ProfileSection/>`, `<SessionsSection/>`, …) inside the app's own settings page — and the
 * `useAccount()` hook they share. Sentences come from the extension's catalogs (`locale`),
 * so the components speak the built-in page's languages. React is an optional peer
 * dependency, imported here only.
 *
 * @example
 * ```tsx
 * import { AccountCenter } from "@portcullis/account/react"
 *
 * export default function Settings() {
 *   return <AccountCenter basePath="/auth" locale="de" />
 * }
 * ```
 * @module
 */
import { createElement as h, useCallback, useEffect, useMemo, useState, type FormEvent, type ReactNode } from "react"
import { AccountClientError, accountClient, type AccountClient, type AccountState } from "./client.js"
import { messages } from "./messages.js"
import { parseUserAgent } from "./user-agent.js"

export { accountClient, AccountClientError } from "./client.js"
export type { AccountClient, AccountClientOptions, AccountState } from "./client.js"

type Key = keyof (typeof messages)["en"]

/** What every component takes: the client (or where the auth routes are) and the language. */
export interface AccountProps {
  client?: AccountClient
  /** Where the auth routes are served (default `/api/auth`), when no `client` is given. */
  basePath?: string
  /** A language of the catalogs (`en de fr es pt ja zh ar`); English for any other. */
  locale?: string
  /** A state to show before the first load (server rendering). */
  initialState?: AccountState
}

/** The shared state of the components: the account, a notice or problem, and `run` for an action. */
export function useAccount(props: AccountProps = {}, options: { load?: boolean } = {}) {
  const client = useMemo(() => props.client ?? accountClient(props.basePath ? { basePath: props.basePath } : {}), [props.client, props.basePath])
  const [state, setState] = useState<AccountState | undefined>(props.initialState)
  const [message, setMessage] = useState<{ notice?: string; problem?: string; reauthenticateUrl?: string }>({})
  const t = useMemo(() => translator(props.locale), [props.locale])
  const refresh = useCallback(async () => setState(await client.state()), [client])
  const load = options.load ?? true
  useEffect(() => {
    if (load && !props.initialState) void refresh().catch(() => {})
  }, [refresh, props.initialState, load])
  /** Runs an action, then reloads; a refusal shows its sentence (and, for a step-up, the link). */
  const run = useCallback(
    async (action: () => Promise<unknown>, notice?: Key) => {
      try {
        await action()
        setMessage(notice ? { notice: t(notice) } : {})
        await refresh()
      } catch (error) {
        const code = error instanceof AccountClientError ? error.code : "generic"
        setMessage({ problem: problemText(t, code), ...(error instanceof AccountClientError && error.reauthenticateUrl && { reauthenticateUrl: error.reauthenticateUrl }) })
      }
    },
    [refresh, t],
  )
  return { client, state, refresh, run, message, t }
}

type Account = ReturnType<typeof useAccount>

function translator(locale = "en") {
  const catalog = (messages as Record<string, Record<string, string>>)[locale] ?? (messages as Record<string, Record<string, string>>)[locale.split("-")[0]!] ?? messages.en
  return (key: Key | string, values: Record<string, string | number> = {}) =>
    (catalog[key] ?? (messages.en as Record<string, string>)[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? `{${name}}`))
}

function problemText(t: Account["t"], code: string): string {
  if (code === "StepUpRequired") return t("stepUp.needed")
  const sentence = t(`problem.${code}`)
  return sentence === `problem.${code}` ? t("problem.generic") : sentence
}

/** A form whose submit runs `onSubmit` with its fields (no page load). */
function Form(props: { label: string; onSubmit(fields: Record<string, string>): void; children?: ReactNode }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    props.onSubmit(Object.fromEntries([...new FormData(event.currentTarget)].map(([k, v]) => [k, String(v)])))
    event.currentTarget.reset()
  }
  return h("form", { "aria-label": props.label, onSubmit: submit }, props.children)
}

function Field(props: { id: string; label: string; name: string; type?: string; autoComplete?: string; defaultValue?: string; required?: boolean }) {
  return h("div", { className: "field" }, h("label", { htmlFor: props.id }, props.label), h("input", { id: props.id, name: props.name, type: props.type ?? "text", autoComplete: props.autoComplete, defaultValue: props.defaultValue, required: props.required }))
}

function Section(props: { id: string; heading: string; children?: ReactNode }) {
  return h("section", { id: props.id, "aria-labelledby": `${props.id}-heading` }, h("h2", { id: `${props.id}-heading` }, props.heading), props.children)
}

type SectionProps = AccountProps & { account?: Account }
/** A section's account: the one `<AccountCenter/>` shares, or its own. */
function useSectionAccount(props: SectionProps): Account {
  // A section inside <AccountCenter/> shares its account and loads nothing of its own.
  const own = useAccount(props, { load: !props.account })
  return props.account ?? own
}

export function ProfileSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state) return null
  return h(Section, { id: "profile", heading: t("profile.heading") },
    h(Form, { label: t("profile.heading"), onSubmit: (f) => void run(() => client.updateProfile({ name: f.name || null, image: f.image || null }), "notice.saved") },
      h(Field, { id: "account-name", name: "name", label: t("profile.name"), autoComplete: "name", defaultValue: state.user.name ?? "" }),
      h(Field, { id: "account-image", name: "image", type: "url", label: t("profile.image"), defaultValue: state.user.image ?? "" }),
      h("button", { type: "submit" }, t("profile.save"))))
}

export function EmailSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state) return null
  return h(Section, { id: "email", heading: t("email.heading") },
    h("p", null, state.user.email ? t("email.current", { email: state.user.email }) : t("email.none")),
    h(Form, { label: t("email.heading"), onSubmit: (f) => void run(() => client.requestEmailChange(f.email ?? ""), "notice.emailSent") },
      h(Field, { id: "account-new-email", name: "email", type: "email", label: t("email.new"), autoComplete: "email", required: true }),
      h("button", { type: "submit" }, t("email.submit"))))
}

export function LinkedAccountsSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state || !state.waysIn.links.length) return null
  return h(Section, { id: "accounts", heading: t("accounts.heading") },
    h("ul", null, state.waysIn.links.map((l) => h("li", { key: l.provider },
      h("strong", null, l.name), " ", h("span", { className: "muted" }, t(l.linked ? "accounts.linked" : "accounts.notLinked")),
      l.linked
        ? h("button", { type: "button", onClick: () => void run(() => client.unlink(l.provider), "notice.unlinked") }, t("accounts.unlink", { provider: l.name }))
        : h("button", { type: "button", onClick: () => void client.link(l.provider) }, t("accounts.link", { provider: l.name }))))))
}

export function PasskeysSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state) return null
  return h(Section, { id: "passkeys", heading: t("passkeys.heading") },
    state.passkeys.length
      ? h("ul", null, state.passkeys.map((p) => {
          const name = p.name ?? t("passkeys.unnamed")
          return h("li", { key: p.id }, h("strong", null, name),
            h(Form, { label: t("passkeys.rename"), onSubmit: (f) => void run(() => client.renamePasskey(p.id, f.name ?? ""), "notice.renamed") },
              h(Field, { id: `account-passkey-${p.id}`, name: "name", label: t("passkeys.newName", { name }), required: true }),
              h("button", { type: "submit" }, t("passkeys.rename"))),
            h("button", { type: "button", onClick: () => void run(() => client.removePasskey(p.id), "notice.removed") }, t("passkeys.remove")))
        }))
      : h("p", { className: "muted" }, t("passkeys.none")),
    h("button", { type: "button", onClick: () => void run(() => client.addPasskey()) }, t("passkeys.add")))
}

export function PasswordSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state?.password.available) return null
  return h(Section, { id: "password", heading: t("password.heading") },
    state.password.set
      ? h(Form, { label: t("password.change"), onSubmit: (f) => void run(() => client.changePassword(f.currentPassword ?? "", f.password ?? ""), "notice.passwordChanged") },
          h(Field, { id: "account-current-password", name: "currentPassword", type: "password", label: t("password.current"), autoComplete: "current-password", required: true }),
          h(Field, { id: "account-new-password", name: "password", type: "password", label: t("password.new"), autoComplete: "new-password", required: true }),
          h("button", { type: "submit" }, t("password.change")))
      : h(Form, { label: t("password.set"), onSubmit: (f) => void run(() => client.setPassword(f.password ?? ""), "notice.passwordSet") },
          h(Field, { id: "account-set-password", name: "password", type: "password", label: t("password.new"), autoComplete: "new-password", required: true }),
          h("button", { type: "submit" }, t("password.set"))))
}

export function TwoFactorSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  const [codes, setCodes] = useState<string[] | null>(null)
  if (!state?.twoFactor.available) return null
  const { twoFactor } = state
  const code = (id: string) => h(Field, { id, name: "code", label: t("twoFactor.code"), autoComplete: "one-time-code", required: true })
  const withCodes = (action: () => Promise<{ backupCodes: string[] }>) => () => action().then((r) => setCodes(r.backupCodes))
  return h(Section, { id: "two-factor", heading: t("twoFactor.heading") },
    codes && h("div", { role: "status" }, h("p", null, t("twoFactor.codes")), h("ul", null, codes.map((c) => h("li", { key: c }, h("code", null, c))))),
    twoFactor.enabled
      ? h("div", null, h("p", null, t("twoFactor.on", { count: twoFactor.backupCodesLeft })),
          h(Form, { label: t("twoFactor.regenerate"), onSubmit: (f) => void run(withCodes(() => client.regenerateBackupCodes(f.code ?? ""))) }, code("account-regenerate-code"), h("button", { type: "submit" }, t("twoFactor.regenerate"))),
          h(Form, { label: t("twoFactor.disable"), onSubmit: (f) => void run(() => client.disableTwoFactor(f.code ?? ""), "notice.twoFactorOff") }, code("account-disable-code"), h("button", { type: "submit" }, t("twoFactor.disable"))))
      : twoFactor.enrollment
        ? h("div", null, h("p", null, t("twoFactor.scan")),
            h("img", { alt: t("twoFactor.qr"), width: 200, height: 200, src: `data:image/svg+xml;base64,${btoa(twoFactor.enrollment.qrSvg)}` }),
            h("p", null, `${t("twoFactor.key")}: `, h("code", null, twoFactor.enrollment.manualKey)),
            h(Form, { label: t("twoFactor.confirm"), onSubmit: (f) => void run(withCodes(() => client.confirmTwoFactor(f.code ?? ""))) }, code("account-enable-code"), h("button", { type: "submit" }, t("twoFactor.confirm"))))
        : h("div", null, h("p", { className: "muted" }, t("twoFactor.off")), h("button", { type: "button", onClick: () => void run(() => client.startTwoFactor()) }, t("twoFactor.start"))))
}

export function SessionsSection(props: SectionProps) {
  const { state, run, client, t } = useSectionAccount(props)
  if (!state?.sessions) return null
  return h(Section, { id: "sessions", heading: t("sessions.heading") },
    h("ul", null, state.sessions.map((s) => {
      const { browser, os } = parseUserAgent(s.userAgent)
      const name = browser && os ? t("sessions.device", { browser, os }) : (browser ?? os ?? t("sessions.unknown"))
      return h("li", { key: s.id }, h("strong", null, name), s.current ? ` (${t("sessions.current")})` : "", s.place ? h("span", { className: "muted" }, ` · ${t("sessions.from", { place: s.place })}`) : null,
        s.current ? null : h("button", { type: "button", onClick: () => void run(() => client.revokeSession(s.id), "notice.revoked") }, t("sessions.revoke")))
    })),
    state.sessions.length > 1 ? h("button", { type: "button", onClick: () => void run(() => client.revokeOtherSessions(), "notice.revoked") }, t("sessions.revokeOthers")) : null)
}

export function DeleteSection(props: SectionProps & { onDeleted?(): void }) {
  const { run, client, t, state } = useSectionAccount(props)
  if (!state) return null
  return h(Section, { id: "delete", heading: t("delete.heading") }, h("p", null, t("delete.warning")),
    h(Form, { label: t("delete.heading"), onSubmit: (f) => void run(async () => { await client.deleteAccount(f.confirm ?? ""); props.onDeleted?.() }) },
      h(Field, { id: "account-delete-confirm", name: "confirm", label: t("delete.confirm"), required: true }),
      h("button", { type: "submit" }, t("delete.submit"))))
}

/** Every section, sharing one state; notices and problems above them (with "Confirm it's you" for a step-up). */
export function AccountCenter(props: AccountProps & { onDeleted?(): void }) {
  const account = useAccount(props)
  const { message, t } = account
  const shared = { ...props, account }
  return h("div", { className: "portcullis-account" },
    h("h1", null, t("title")),
    message.notice ? h("p", { role: "status" }, message.notice) : null,
    message.problem ? h("p", { role: "alert" }, message.problem, message.reauthenticateUrl ? h("a", { href: message.reauthenticateUrl }, ` ${t("stepUp.link")}`) : null) : null,
    h(ProfileSection, shared), h(EmailSection, shared), h(LinkedAccountsSection, shared), h(PasskeysSection, shared),
    h(PasswordSection, shared), h(TwoFactorSection, shared), h(SessionsSection, shared), h(DeleteSection, shared))
}
