import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "Die Anmeldung mit diesem Konto ist fehlgeschlagen. Bitte versuchen Sie es erneut oder verwenden Sie ein anderes Konto."

/** German. */
export const de: Messages = {
  dir: "ltr",
  layout: { logoAlt: "Logo der Website" },
  signin: {
    title: "Anmelden",
    heading: "Anmelden",
    or: "oder",
    noProviders: "Es sind keine Anmeldemethoden verfügbar.",
    signInWith: "Mit {provider} anmelden",
    emailLabel: "E-Mail",
    errors: {
      default: "Bei der Anmeldung ist etwas schiefgelaufen. Bitte versuchen Sie es erneut.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "Diese E-Mail-Adresse ist bereits mit einer anderen Anmeldemethode verknüpft. Zum Schutz Ihres Kontos melden Sie sich bitte so an wie zuvor.",
      EmailSignin: "Die Anmelde-E-Mail konnte nicht gesendet werden. Bitte prüfen Sie die Adresse und versuchen Sie es erneut.",
      CredentialsSignin: "Die Anmeldung ist fehlgeschlagen. Bitte prüfen Sie Ihre Angaben und versuchen Sie es erneut.",
      SessionRequired: "Bitte melden Sie sich an, um diese Seite zu sehen.",
      MissingCSRF: "Dieses Formular ist abgelaufen. Bitte melden Sie sich erneut an.",
      AccessDenied: "Sie haben keine Berechtigung, sich anzumelden.",
      Verification: "Dieser Anmeldelink ist nicht mehr gültig. Er ist möglicherweise abgelaufen oder wurde bereits verwendet. Bitte fordern Sie einen neuen an.",
      WebAuthnVerificationError: "Ihr Passkey konnte nicht überprüft werden. Bitte versuchen Sie es erneut.",
      AccountNotLinked: "Dieser Passkey oder diese E-Mail-Adresse gehört zu einem anderen Konto. Melden Sie sich zuerst bei diesem Konto an.",
      RateLimited: "Zu viele Anmeldeversuche. Bitte warten Sie zu Ihrer Sicherheit einige Minuten, bevor Sie es erneut versuchen.",
    },
  },
  signout: { title: "Abmelden", heading: "Abmelden", question: "Möchten Sie sich wirklich abmelden?", button: "Abmelden" },
  error: {
    title: "Fehler",
    code: "Fehlercode: {code}",
    signIn: "Anmelden",
    signInAgain: "Erneut anmelden",
    tryAgain: "Erneut versuchen",
    pages: {
      default: { heading: "Etwas ist schiefgelaufen", message: "Etwas ist schiefgelaufen. Bitte versuchen Sie es später erneut." },
      Configuration: { heading: "Serverfehler", message: "Die Serverkonfiguration ist fehlerhaft. Weitere Informationen finden Sie in den Serverprotokollen." },
      AccessDenied: { heading: "Zugriff verweigert", message: "Sie haben keine Berechtigung, sich anzumelden." },
      Verification: { heading: "Link nicht mehr gültig", message: "Der Anmeldelink ist nicht mehr gültig. Er ist möglicherweise abgelaufen oder wurde bereits verwendet." },
      ServiceUnavailable: { heading: "Vorübergehend nicht verfügbar", message: "Der Anmeldedienst ist gerade nicht erreichbar. Es wurde nichts geändert; bitte versuchen Sie es gleich noch einmal." },
    },
  },
  verifyRequest: {
    title: "E-Mail bestätigen",
    heading: "Prüfen Sie Ihr Postfach",
    sent: "Wir haben Ihnen einen Anmeldelink geschickt. Öffnen Sie ihn auf diesem Gerät, um die Anmeldung abzuschließen.",
    once: "Der Link kann nur einmal verwendet werden und läuft nach einiger Zeit ab.",
    backTo: "Zurück zu {site}",
    theSite: "der Website",
  },
  confirm: {
    title: "Anmelden",
    heading: "Bei {host} anmelden",
    continueAs: "Als {email} fortfahren?",
    button: "Anmelden",
    ignore: "Wenn Sie keine Anmeldung angefordert haben, schließen Sie diese Seite: Ohne Klick auf die Schaltfläche passiert nichts.",
  },
  email: {
    subject: "Bei {host} anmelden",
    heading: "Bei {host} anmelden",
    button: "Anmelden",
    expires: "Der Link funktioniert einmal und läuft in {duration} ab.",
    ignore: "Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie einfach ignorieren.",
  },
  passkey: {
    unsupported: "Dieser Browser unterstützt keine Passkeys.",
    cancelled: "Die Passkey-Anfrage wurde abgebrochen oder ist abgelaufen. Bitte versuchen Sie es erneut.",
    optionsRefused: "Geben Sie die E-Mail-Adresse eines neuen Kontos ein, oder melden Sie sich zuerst an, um einen Passkey hinzuzufügen.",
    alreadyRegistered: "Dieser Passkey ist bereits registriert. Melden Sie sich stattdessen damit an.",
    failed: "Passkeys funktionieren gerade nicht. Bitte versuchen Sie es erneut.",
  },
  password: {
    passwordLabel: "Passwort",
  },
}
