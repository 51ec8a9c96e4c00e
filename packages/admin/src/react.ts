/**
 * `@portcullis/admin/react`: `<ImpersonationBanner/>`, the impersonation banner for an app's
 * own pages — who is being impersonated, by whom, until when, and the one-click end (a form
 * `POST` to `<basePath>/admin/impersonation/end` with the CSRF token). It renders nothing
 * unless the session says it is an impersonation (`session.admin`). React is an optional
 * peer dependency, imported here only.
 *
 * @example
 * ```tsx
 * import { ImpersonationBanner } from "@portcullis/admin/react"
 *
 * export function Layout({ session, csrfToken, children }) {
 *   return <>{<ImpersonationBanner session={session} basePath="/auth" csrfToken={csrfToken} />}{children}</>
 * }
 * ```
 * @module
 */
import { createElement as h, useState, type FormEvent, type ReactNode } from "react"
import { messages } from "./messages.js"

/** What the session answer carries while impersonating (`session.admin`). */
export interface ImpersonationSessionField {
  impersonatedBy: { id: string; email: string | null }
  /** ISO date: the hard end. */
  until: string
}

export interface ImpersonationBannerProps {
  /** The session answer (`auth()`, `useSession().data`); nothing renders without `session.admin`. */
  session: { user?: { email?: string | null; name?: string | null } | null; admin?: ImpersonationSessionField | null } | null | undefined
  /** Where the auth routes are served (default `/api/auth`). */
  basePath?: string
  /** The CSRF token for the end form; without it, it is fetched from `<basePath>/csrf` when the button is pressed. */
  csrfToken?: string
  /** A language of the catalogs (`en de fr es pt ja zh ar`); English for any other. */
  locale?: string
}

function sentence(locale: string | undefined, key: string, values: Record<string, string> = {}): string {
  const catalog = (locale && (messages[locale] ?? messages[locale.split("-")[0]!])) || messages.en!
  const template = catalog[key] ?? messages.en![key] ?? key
  return template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`)
}

/** The banner, or `null` when the session is no impersonation. */
export function ImpersonationBanner(props: ImpersonationBannerProps): ReactNode {
  const { session, basePath = "/api/auth", locale } = props
  const [token, setToken] = useState(props.csrfToken ?? "")
  const field = session?.admin
  if (!field?.impersonatedBy || !field.until) return null
  const until = new Date(field.until)
  const when = Number.isNaN(until.getTime()) ? field.until : `${new Intl.DateTimeFormat(locale ?? "en", { timeStyle: "short", timeZone: "UTC" }).format(until)} UTC`
  const user = session?.user?.email ?? session?.user?.name ?? ""
  const label = sentence(locale, "impersonation")
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    if (token) return
    // No token given: fetch one, then submit the form as the server expects it.
    event.preventDefault()
    const form = event.currentTarget
    const answer = (await (await fetch(`${basePath}/csrf`, { credentials: "same-origin" })).json()) as { csrfToken: string }
    setToken(answer.csrfToken)
    const input = form.querySelector<HTMLInputElement>('input[name="csrfToken"]')
    if (input) input.value = answer.csrfToken
    form.submit()
  }
  return h(
    "div",
    { className: "pc-impersonation", role: "region", "aria-label": label },
    h("p", null, sentence(locale, "impersonationBanner", { user, admin: field.impersonatedBy.email ?? field.impersonatedBy.id, until: when })),
    h(
      "form",
      { method: "post", action: `${basePath}/admin/impersonation/end`, onSubmit },
      h("input", { type: "hidden", name: "csrfToken", value: token, readOnly: true }),
      h("button", { type: "submit" }, sentence(locale, "endImpersonation")),
    ),
  )
}
