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
  "device.title": "Connect a device",
  "device.intro": "Enter the code your device shows.",
  "device.warning": "Only enter a code shown on a device you own and just started signing in on. If someone sent you this code, do not enter it: they are trying to get into your account.",
  "device.label": "Code",
  "device.hint": "8 letters, like WDJB-MJHT",
  "device.continue": "Continue",
  "device.confirm": "Connect {client} to your account?",
  "device.approved": "Your device is connected. You can go back to it now.",
  "device.denied": "Nothing was connected. Your device will show that the request was denied.",
  "device.unknown": "This code is not valid or has expired. Check the code on your device and try again.",
  "device.used": "This code was already used. Start again on your device.",
}

export type OidcExtraMessages = Record<keyof typeof en, string>

const de: OidcExtraMessages = {
  "consent.unverified": "{client} hat sich selbst registriert: Der Name ist nicht geprüft. Nach Ihrer Antwort gelangen Sie zu {host}. Erlauben Sie nur, wenn Sie dies in einer vertrauenswürdigen App begonnen haben.",
  "account.since": "Erlaubt am {date}",
  "account.revoke": "Zugriff für {client} entfernen",
  "error.unknown-consent": "Diese App hat keinen Zugriff auf Ihr Konto.",
  "device.title": "Gerät verbinden",
  "device.intro": "Geben Sie den Code ein, den Ihr Gerät anzeigt.",
  "device.warning": "Geben Sie nur einen Code ein, der auf Ihrem eigenen Gerät angezeigt wird, auf dem Sie gerade die Anmeldung begonnen haben. Hat Ihnen jemand diesen Code geschickt, geben Sie ihn nicht ein: Diese Person versucht, in Ihr Konto zu gelangen.",
  "device.label": "Code",
  "device.hint": "8 Buchstaben, etwa WDJB-MJHT",
  "device.continue": "Weiter",
  "device.confirm": "{client} mit Ihrem Konto verbinden?",
  "device.approved": "Ihr Gerät ist verbunden. Sie können jetzt zu ihm zurückkehren.",
  "device.denied": "Es wurde nichts verbunden. Ihr Gerät zeigt an, dass die Anfrage abgelehnt wurde.",
  "device.unknown": "Dieser Code ist ungültig oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät und versuchen Sie es erneut.",
  "device.used": "Dieser Code wurde bereits verwendet. Beginnen Sie auf Ihrem Gerät erneut.",
}
const fr: OidcExtraMessages = {
  "consent.unverified": "{client} s’est inscrit lui-même : son nom n’est pas vérifié. Après votre réponse, vous irez sur {host}. N’autorisez que si vous avez commencé depuis une app de confiance.",
  "account.since": "Autorisé le {date}",
  "account.revoke": "Retirer l’accès de {client}",
  "error.unknown-consent": "Cette app n’a pas accès à votre compte.",
  "device.title": "Connecter un appareil",
  "device.intro": "Saisissez le code affiché par votre appareil.",
  "device.warning": "Ne saisissez qu’un code affiché sur un appareil qui vous appartient et sur lequel vous venez de commencer à vous connecter. Si quelqu’un vous a envoyé ce code, ne le saisissez pas : cette personne essaie d’accéder à votre compte.",
  "device.label": "Code",
  "device.hint": "8 lettres, par exemple WDJB-MJHT",
  "device.continue": "Continuer",
  "device.confirm": "Connecter {client} à votre compte ?",
  "device.approved": "Votre appareil est connecté. Vous pouvez y retourner.",
  "device.denied": "Rien n’a été connecté. Votre appareil indiquera que la demande a été refusée.",
  "device.unknown": "Ce code n’est pas valide ou a expiré. Vérifiez le code sur votre appareil et réessayez.",
  "device.used": "Ce code a déjà été utilisé. Recommencez sur votre appareil.",
}
const es: OidcExtraMessages = {
  "consent.unverified": "{client} se registró por sí mismo: su nombre no está verificado. Después de responder irás a {host}. Permite solo si empezaste desde una app de confianza.",
  "account.since": "Permitido el {date}",
  "account.revoke": "Quitar el acceso de {client}",
  "error.unknown-consent": "Esta app no tiene acceso a tu cuenta.",
  "device.title": "Conectar un dispositivo",
  "device.intro": "Introduce el código que muestra tu dispositivo.",
  "device.warning": "Introduce solo un código que aparezca en un dispositivo tuyo en el que acabas de empezar a iniciar sesión. Si alguien te envió este código, no lo introduzcas: está intentando entrar en tu cuenta.",
  "device.label": "Código",
  "device.hint": "8 letras, como WDJB-MJHT",
  "device.continue": "Continuar",
  "device.confirm": "¿Conectar {client} a tu cuenta?",
  "device.approved": "Tu dispositivo está conectado. Ya puedes volver a él.",
  "device.denied": "No se conectó nada. Tu dispositivo mostrará que la solicitud fue denegada.",
  "device.unknown": "Este código no es válido o ha caducado. Comprueba el código en tu dispositivo e inténtalo de nuevo.",
  "device.used": "Este código ya se usó. Vuelve a empezar en tu dispositivo.",
}
const pt: OidcExtraMessages = {
  "consent.unverified": "{client} registrou-se sozinho: o nome não é verificado. Depois de responder, você irá para {host}. Permita apenas se começou a partir de um app confiável.",
  "account.since": "Permitido em {date}",
  "account.revoke": "Remover o acesso de {client}",
  "error.unknown-consent": "Este app não tem acesso à sua conta.",
  "device.title": "Conectar um dispositivo",
  "device.intro": "Digite o código exibido no seu dispositivo.",
  "device.warning": "Digite apenas um código exibido em um dispositivo seu no qual você acabou de começar a entrar. Se alguém enviou este código para você, não o digite: essa pessoa está tentando entrar na sua conta.",
  "device.label": "Código",
  "device.hint": "8 letras, como WDJB-MJHT",
  "device.continue": "Continuar",
  "device.confirm": "Conectar {client} à sua conta?",
  "device.approved": "Seu dispositivo está conectado. Você já pode voltar a ele.",
  "device.denied": "Nada foi conectado. Seu dispositivo mostrará que a solicitação foi negada.",
  "device.unknown": "Este código não é válido ou expirou. Confira o código no seu dispositivo e tente de novo.",
  "device.used": "Este código já foi usado. Comece de novo no seu dispositivo.",
}
const ja: OidcExtraMessages = {
  "consent.unverified": "{client} は自己登録されたアプリで、名前は確認されていません。応答後は {host} に移動します。信頼できるアプリから始めた場合のみ許可してください。",
  "account.since": "{date} に許可",
  "account.revoke": "{client} のアクセスを削除",
  "error.unknown-consent": "このアプリはあなたのアカウントにアクセスできません。",
  "device.title": "デバイスを接続",
  "device.intro": "デバイスに表示されているコードを入力してください。",
  "device.warning": "自分のデバイスに表示され、今サインインを始めたばかりのコードだけを入力してください。誰かから送られてきたコードは入力しないでください。その人はあなたのアカウントに侵入しようとしています。",
  "device.label": "コード",
  "device.hint": "8 文字（例: WDJB-MJHT）",
  "device.continue": "続ける",
  "device.confirm": "{client} をあなたのアカウントに接続しますか？",
  "device.approved": "デバイスが接続されました。デバイスに戻ってください。",
  "device.denied": "何も接続されませんでした。デバイスには要求が拒否されたと表示されます。",
  "device.unknown": "このコードは無効か期限切れです。デバイスのコードを確認して、もう一度お試しください。",
  "device.used": "このコードはすでに使用されています。デバイスでやり直してください。",
}
const zh: OidcExtraMessages = {
  "consent.unverified": "{client} 是自行注册的应用，其名称未经验证。回答后您将前往 {host}。仅当您从信任的应用开始此操作时才允许。",
  "account.since": "于 {date} 允许",
  "account.revoke": "移除 {client} 的访问权限",
  "error.unknown-consent": "此应用无权访问您的账户。",
  "device.title": "连接设备",
  "device.intro": "请输入设备上显示的代码。",
  "device.warning": "只输入您自己的设备上显示、且您刚开始登录的代码。如果有人把这个代码发给您，请不要输入：对方正试图进入您的账户。",
  "device.label": "代码",
  "device.hint": "8 个字母，例如 WDJB-MJHT",
  "device.continue": "继续",
  "device.confirm": "将 {client} 连接到您的账户？",
  "device.approved": "您的设备已连接。现在可以返回设备。",
  "device.denied": "没有连接任何内容。您的设备将显示请求已被拒绝。",
  "device.unknown": "此代码无效或已过期。请核对设备上的代码后重试。",
  "device.used": "此代码已被使用。请在设备上重新开始。",
}
const ar: OidcExtraMessages = {
  "consent.unverified": "سجّل {client} نفسه هنا: اسمه غير موثّق. بعد إجابتك ستنتقل إلى {host}. اسمح فقط إذا بدأت هذا من تطبيق تثق به.",
  "account.since": "سُمح به في {date}",
  "account.revoke": "إزالة وصول {client}",
  "error.unknown-consent": "ليس لهذا التطبيق وصول إلى حسابك.",
  "device.title": "ربط جهاز",
  "device.intro": "أدخل الرمز الظاهر على جهازك.",
  "device.warning": "لا تُدخل إلا رمزًا ظاهرًا على جهاز تملكه وبدأت للتو تسجيل الدخول عليه. إذا أرسل إليك أحد هذا الرمز فلا تُدخله: إنه يحاول الدخول إلى حسابك.",
  "device.label": "الرمز",
  "device.hint": "8 أحرف، مثل WDJB-MJHT",
  "device.continue": "متابعة",
  "device.confirm": "ربط {client} بحسابك؟",
  "device.approved": "تم ربط جهازك. يمكنك العودة إليه الآن.",
  "device.denied": "لم يُربط شيء. سيعرض جهازك أن الطلب رُفض.",
  "device.unknown": "هذا الرمز غير صالح أو انتهت صلاحيته. تحقق من الرمز على جهازك وحاول مرة أخرى.",
  "device.used": "استُخدم هذا الرمز من قبل. ابدأ من جديد على جهازك.",
}

/** The added sentences per language. */
export const extraMessages: Readonly<Record<string, OidcExtraMessages>> = { en, de, fr, es, pt, ja, zh, ar }

/** `catalog` with the added sentences of each of its languages. */
export function withExtraMessages<T extends Record<string, string>>(catalog: Readonly<Record<string, T>>): Readonly<Record<string, T & OidcExtraMessages>> {
  return Object.fromEntries(Object.entries(catalog).map(([lang, sentences]) => [lang, { ...sentences, ...(extraMessages[lang] ?? en) }]))
}
