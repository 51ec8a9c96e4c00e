/**
 * The sentences of SSO: the sign-in page's button and the refusals shown on a page
 * (`error.<code>`, which core shows when a route answering with pages refuses), by language.
 * @module
 */

const en = {
  "error.title": "Single sign-on",
  continue: "Continue with {name}",
  "error.sso-unavailable": "Single sign-on is not set up for this address. Go back and choose another way to sign in.",
  "error.unknown-connection": "This single sign-on connection does not exist or is turned off. Ask your organization's administrator.",
  "error.saml-rejected": "Your identity provider's answer could not be accepted. Try signing in again from the start; if it happens again, tell your organization's administrator.",
  "error.idp-unavailable": "Your organization's identity provider could not be reached. Try again in a few minutes; if it keeps happening, tell your organization's administrator.",
  "error.ServiceUnavailable": "Sign-in is unavailable for a moment. Try again shortly.",
  "error.deprovisioned": "Your access to this organization was removed by its administrator. If you think this is a mistake, ask them to restore it.",
  "error.OAuthCallbackError": "The sign-in with your identity provider could not be completed. Try signing in again from the start; if it happens again, tell your organization's administrator.",
}

export type SsoMessages = Record<keyof typeof en, string>

const de: SsoMessages = {
  "error.title": "Single Sign-on",
  continue: "Weiter mit {name}",
  "error.sso-unavailable": "Für diese Adresse ist kein Single Sign-on eingerichtet. Gehe zurück und wähle einen anderen Weg zur Anmeldung.",
  "error.unknown-connection": "Diese Single-Sign-on-Verbindung gibt es nicht oder sie ist ausgeschaltet. Frag die Administration deiner Organisation.",
  "error.saml-rejected": "Die Antwort deines Identitätsanbieters konnte nicht angenommen werden. Melde dich noch einmal von vorn an; passiert es wieder, sag es der Administration deiner Organisation.",
  "error.idp-unavailable": "Der Identitätsanbieter deiner Organisation ist nicht erreichbar. Versuche es in ein paar Minuten erneut; wenn es wieder passiert, sag dem Administrator deiner Organisation Bescheid.",
  "error.ServiceUnavailable": "Die Anmeldung ist gerade nicht verfügbar. Versuche es gleich noch einmal.",
  "error.deprovisioned": "Dein Zugang zu dieser Organisation wurde von ihrem Administrator entfernt. Wenn du das für einen Fehler hältst, bitte ihn, ihn wiederherzustellen.",
  "error.OAuthCallbackError": "Die Anmeldung bei deinem Identitätsanbieter konnte nicht abgeschlossen werden. Melde dich noch einmal von vorn an; wenn es wieder passiert, sag dem Administrator deiner Organisation Bescheid.",
}

const fr: SsoMessages = {
  "error.title": "Authentification unique",
  continue: "Continuer avec {name}",
  "error.sso-unavailable": "L’authentification unique n’est pas configurée pour cette adresse. Revenez en arrière et choisissez une autre façon de vous connecter.",
  "error.unknown-connection": "Cette connexion d’authentification unique n’existe pas ou est désactivée. Adressez-vous à l’administrateur de votre organisation.",
  "error.saml-rejected": "La réponse de votre fournisseur d’identité n’a pas pu être acceptée. Recommencez la connexion depuis le début ; si cela se reproduit, prévenez l’administrateur de votre organisation.",
  "error.idp-unavailable": "Le fournisseur d'identité de votre organisation est injoignable. Réessayez dans quelques minutes ; si cela se reproduit, prévenez l'administrateur de votre organisation.",
  "error.ServiceUnavailable": "La connexion est momentanément indisponible. Réessayez dans un instant.",
  "error.deprovisioned": "Votre accès à cette organisation a été retiré par son administrateur. Si vous pensez que c'est une erreur, demandez-lui de le rétablir.",
  "error.OAuthCallbackError": "La connexion auprès de votre fournisseur d'identité n'a pas pu aboutir. Recommencez la connexion depuis le début ; si cela se reproduit, prévenez l'administrateur de votre organisation.",
}

const es: SsoMessages = {
  "error.title": "Inicio de sesión único",
  continue: "Continuar con {name}",
  "error.sso-unavailable": "El inicio de sesión único no está configurado para esta dirección. Vuelve atrás y elige otra forma de iniciar sesión.",
  "error.unknown-connection": "Esta conexión de inicio de sesión único no existe o está desactivada. Consulta al administrador de tu organización.",
  "error.saml-rejected": "No se pudo aceptar la respuesta de tu proveedor de identidad. Vuelve a iniciar sesión desde el principio; si vuelve a ocurrir, avisa al administrador de tu organización.",
  "error.idp-unavailable": "No se pudo contactar con el proveedor de identidad de tu organización. Inténtalo de nuevo en unos minutos; si vuelve a ocurrir, avisa al administrador de tu organización.",
  "error.ServiceUnavailable": "El inicio de sesión no está disponible en este momento. Vuelve a intentarlo en breve.",
  "error.deprovisioned": "El administrador de esta organización retiró tu acceso. Si crees que es un error, pídele que lo restablezca.",
  "error.OAuthCallbackError": "No se pudo completar el inicio de sesión con tu proveedor de identidad. Vuelve a iniciar sesión desde el principio; si vuelve a ocurrir, avisa al administrador de tu organización.",
}

const pt: SsoMessages = {
  "error.title": "Início de sessão único",
  continue: "Continuar com {name}",
  "error.sso-unavailable": "O início de sessão único não está configurado para este endereço. Volte e escolha outra forma de entrar.",
  "error.unknown-connection": "Esta ligação de início de sessão único não existe ou está desativada. Fale com o administrador da sua organização.",
  "error.saml-rejected": "Não foi possível aceitar a resposta do seu fornecedor de identidade. Entre novamente desde o início; se voltar a acontecer, avise o administrador da sua organização.",
  "error.idp-unavailable": "Não foi possível contatar o provedor de identidade da sua organização. Tente novamente em alguns minutos; se continuar acontecendo, avise o administrador da sua organização.",
  "error.ServiceUnavailable": "O login está indisponível no momento. Tente novamente em instantes.",
  "error.deprovisioned": "O administrador desta organização removeu o seu acesso. Se você acha que é um engano, peça que ele o restaure.",
  "error.OAuthCallbackError": "Não foi possível concluir o login com o seu provedor de identidade. Faça login novamente desde o início; se acontecer de novo, avise o administrador da sua organização.",
}

const ja: SsoMessages = {
  "error.title": "シングルサインオン",
  continue: "{name} で続行",
  "error.sso-unavailable": "このメールアドレスにはシングルサインオンが設定されていません。戻って別の方法でサインインしてください。",
  "error.unknown-connection": "このシングルサインオン接続は存在しないか、無効になっています。組織の管理者に問い合わせてください。",
  "error.saml-rejected": "IDプロバイダーからの応答を受け付けられませんでした。最初からもう一度サインインしてください。繰り返し起きる場合は、組織の管理者に連絡してください。",
  "error.idp-unavailable": "組織の ID プロバイダーに接続できませんでした。数分後にもう一度お試しください。繰り返し起こる場合は組織の管理者に連絡してください。",
  "error.ServiceUnavailable": "現在サインインできません。しばらくしてからもう一度お試しください。",
  "error.deprovisioned": "この組織へのアクセスは管理者によって削除されました。誤りだと思われる場合は、管理者に復元を依頼してください。",
  "error.OAuthCallbackError": "ID プロバイダーでのサインインを完了できませんでした。最初からもう一度サインインしてください。再び起こる場合は組織の管理者に連絡してください。",
}

const zh: SsoMessages = {
  "error.title": "单点登录",
  continue: "通过 {name} 继续",
  "error.sso-unavailable": "此地址未设置单点登录。请返回并选择其他登录方式。",
  "error.unknown-connection": "此单点登录连接不存在或已停用。请联系你所在组织的管理员。",
  "error.saml-rejected": "无法接受你的身份提供方的响应。请从头重新登录；如果再次出现，请告知你所在组织的管理员。",
  "error.idp-unavailable": "无法连接你所在组织的身份提供方。请几分钟后重试；如果仍然出现，请告知你所在组织的管理员。",
  "error.ServiceUnavailable": "登录暂时不可用，请稍后重试。",
  "error.deprovisioned": "你对该组织的访问权限已被其管理员移除。如果你认为这是误操作，请联系管理员恢复。",
  "error.OAuthCallbackError": "无法完成通过身份提供方的登录。请从头重新登录；如果再次出现，请告知你所在组织的管理员。",
}

const ar: SsoMessages = {
  "error.title": "تسجيل الدخول الموحّد",
  continue: "المتابعة باستخدام {name}",
  "error.sso-unavailable": "لم يُعدّ تسجيل الدخول الموحّد لهذا العنوان. ارجع واختر طريقة أخرى لتسجيل الدخول.",
  "error.unknown-connection": "اتصال تسجيل الدخول الموحّد هذا غير موجود أو متوقف. تواصل مع مسؤول مؤسستك.",
  "error.saml-rejected": "تعذّر قبول ردّ مزوّد الهوية. سجّل الدخول من البداية مرة أخرى؛ وإن تكرّر ذلك فأبلغ مسؤول مؤسستك.",
  "error.idp-unavailable": "تعذّر الوصول إلى مزوّد الهوية لدى مؤسستك. حاول مرة أخرى بعد بضع دقائق؛ وإن تكرّر ذلك فأبلغ مسؤول مؤسستك.",
  "error.ServiceUnavailable": "تسجيل الدخول غير متاح مؤقتًا. حاول مرة أخرى بعد قليل.",
  "error.deprovisioned": "أزال مسؤول هذه المؤسسة وصولك إليها. إن كنت تظن أن ذلك خطأ فاطلب منه استعادته.",
  "error.OAuthCallbackError": "تعذّر إكمال تسجيل الدخول عبر مزوّد الهوية. سجّل الدخول من البداية مرة أخرى؛ وإن تكرّر ذلك فأبلغ مسؤول مؤسستك.",
}

/** The catalogs, by language tag. English is the fallback for anything missing. */
export const messages: Readonly<Record<string, SsoMessages>> = { en, de, fr, es, pt, ja, zh, ar }
