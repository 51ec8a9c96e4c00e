/**
 * Sentences of the features added beside the protocol core — the consent page's notice for
 * self-registered clients, the account center's section, the "no such app" refusal — in the
 * eight languages of core's pages, merged into the provider's catalog by {@link withExtraMessages}.
 * @module
 */

const en = {
  "consent.unverified": "{client} registered itself here: its name is not verified. After you answer, you go to {host}. Allow only if you started this from an app you trust.",
  "account.since": "Allowed on {date}",
  "account.revoke": "Remove access for {client}",
  "error.unknown-consent": "This app has no access to your account.",
}

export type OidcExtraMessages = Record<keyof typeof en, string>

const de: OidcExtraMessages = {
  "consent.unverified": "{client} hat sich selbst registriert: Der Name ist nicht geprüft. Nach Ihrer Antwort gelangen Sie zu {host}. Erlauben Sie nur, wenn Sie dies in einer vertrauenswürdigen App begonnen haben.",
  "account.since": "Erlaubt am {date}",
  "account.revoke": "Zugriff für {client} entfernen",
  "error.unknown-consent": "Diese App hat keinen Zugriff auf Ihr Konto.",
}
const fr: OidcExtraMessages = {
  "consent.unverified": "{client} s’est inscrit lui-même : son nom n’est pas vérifié. Après votre réponse, vous irez sur {host}. N’autorisez que si vous avez commencé depuis une app de confiance.",
  "account.since": "Autorisé le {date}",
  "account.revoke": "Retirer l’accès de {client}",
  "error.unknown-consent": "Cette app n’a pas accès à votre compte.",
}
const es: OidcExtraMessages = {
  "consent.unverified": "{client} se registró por sí mismo: su nombre no está verificado. Después de responder irás a {host}. Permite solo si empezaste desde una app de confianza.",
  "account.since": "Permitido el {date}",
  "account.revoke": "Quitar el acceso de {client}",
  "error.unknown-consent": "Esta app no tiene acceso a tu cuenta.",
}
const pt: OidcExtraMessages = {
  "consent.unverified": "{client} registrou-se sozinho: o nome não é verificado. Depois de responder, você irá para {host}. Permita apenas se começou a partir de um app confiável.",
  "account.since": "Permitido em {date}",
  "account.revoke": "Remover o acesso de {client}",
  "error.unknown-consent": "Este app não tem acesso à sua conta.",
}
const ja: OidcExtraMessages = {
  "consent.unverified": "{client} は自己登録されたアプリで、名前は確認されていません。応答後は {host} に移動します。信頼できるアプリから始めた場合のみ許可してください。",
  "account.since": "{date} に許可",
  "account.revoke": "{client} のアクセスを削除",
  "error.unknown-consent": "このアプリはあなたのアカウントにアクセスできません。",
}
const zh: OidcExtraMessages = {
  "consent.unverified": "{client} 是自行注册的应用，其名称未经验证。回答后您将前往 {host}。仅当您从信任的应用开始此操作时才允许。",
  "account.since": "于 {date} 允许",
  "account.revoke": "移除 {client} 的访问权限",
  "error.unknown-consent": "此应用无权访问您的账户。",
}
const ar: OidcExtraMessages = {
  "consent.unverified": "سجّل {client} نفسه هنا: اسمه غير موثّق. بعد إجابتك ستنتقل إلى {host}. اسمح فقط إذا بدأت هذا من تطبيق تثق به.",
  "account.since": "سُمح به في {date}",
  "account.revoke": "إزالة وصول {client}",
  "error.unknown-consent": "ليس لهذا التطبيق وصول إلى حسابك.",
}

/** The added sentences per language. */
export const extraMessages: Readonly<Record<string, OidcExtraMessages>> = { en, de, fr, es, pt, ja, zh, ar }

/** `catalog` with the added sentences of each of its languages. */
export function withExtraMessages<T extends Record<string, string>>(catalog: Readonly<Record<string, T>>): Readonly<Record<string, T & OidcExtraMessages>> {
  return Object.fromEntries(Object.entries(catalog).map(([lang, sentences]) => [lang, { ...sentences, ...(extraMessages[lang] ?? en) }]))
}
