import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "No hemos podido iniciar sesión con esa cuenta. Inténtalo de nuevo o usa otra cuenta."

/** Spanish. */
export const es: Messages = {
  dir: "ltr",
  layout: { logoAlt: "Logotipo del sitio" },
  signin: {
    title: "Iniciar sesión",
    heading: "Iniciar sesión",
    or: "o",
    noProviders: "No hay métodos de inicio de sesión disponibles.",
    signInWith: "Iniciar sesión con {provider}",
    emailLabel: "Correo electrónico",
    errors: {
      default: "Algo salió mal al iniciar sesión. Inténtalo de nuevo.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "Esta dirección de correo ya está vinculada a otra forma de iniciar sesión. Para proteger tu cuenta, inicia sesión como lo hiciste antes.",
      EmailSignin: "No hemos podido enviar el correo de inicio de sesión. Comprueba la dirección e inténtalo de nuevo.",
      CredentialsSignin: "No se pudo iniciar sesión. Comprueba los datos introducidos e inténtalo de nuevo.",
      SessionRequired: "Inicia sesión para ver esta página.",
      MissingCSRF: "Este formulario ha caducado. Vuelve a iniciar sesión.",
      AccessDenied: "No tienes permiso para iniciar sesión.",
      Verification: "Este enlace de inicio de sesión ya no es válido. Puede haber caducado o haberse usado ya. Solicita uno nuevo.",
      WebAuthnVerificationError: "No hemos podido verificar tu llave de acceso. Inténtalo de nuevo.",
      AccountNotLinked: "Esta llave de acceso o este correo pertenece a otra cuenta. Inicia sesión primero en esa cuenta.",
      RateLimited: "Demasiados intentos de inicio de sesión. Por tu seguridad, espera unos minutos antes de volver a intentarlo.",
    },
  },
  signout: { title: "Cerrar sesión", heading: "Cerrar sesión", question: "¿Seguro que quieres cerrar sesión?", button: "Cerrar sesión" },
  error: {
    title: "Error",
    code: "Código de error: {code}",
    signIn: "Iniciar sesión",
    signInAgain: "Volver a iniciar sesión",
    tryAgain: "Reintentar",
    pages: {
      default: { heading: "Algo salió mal", message: "Algo salió mal. Inténtalo de nuevo más tarde." },
      Configuration: { heading: "Error del servidor", message: "Hay un problema con la configuración del servidor. Consulta los registros del servidor para más información." },
      AccessDenied: { heading: "Acceso denegado", message: "No tienes permiso para iniciar sesión." },
      Verification: { heading: "El enlace ya no es válido", message: "El enlace de inicio de sesión ya no es válido. Puede haber caducado o haberse usado ya." },
      ServiceUnavailable: { heading: "No disponible temporalmente", message: "No hemos podido contactar con el servicio de inicio de sesión. No se ha cambiado nada; inténtalo de nuevo en un momento." },
    },
  },
  verifyRequest: {
    title: "Verificación",
    heading: "Revisa tu correo",
    sent: "Te hemos enviado un enlace de inicio de sesión. Ábrelo en este dispositivo para terminar de iniciar sesión.",
    once: "El enlace solo puede usarse una vez y caduca pasado un tiempo.",
    backTo: "Volver a {site}",
    theSite: "el sitio",
  },
  confirm: {
    title: "Iniciar sesión",
    heading: "Iniciar sesión en {host}",
    continueAs: "¿Continuar como {email}?",
    button: "Iniciar sesión",
    ignore: "Si no has pedido iniciar sesión, cierra esta página: no ocurrirá nada hasta que pulses el botón.",
  },
  email: {
    subject: "Iniciar sesión en {host}",
    heading: "Iniciar sesión en {host}",
    button: "Iniciar sesión",
    expires: "El enlace funciona una sola vez y caduca en {duration}.",
    ignore: "Si no has solicitado este correo, puedes ignorarlo.",
  },
  passkey: {
    unsupported: "Este navegador no admite llaves de acceso.",
    cancelled: "La solicitud de llave de acceso se canceló o caducó. Inténtalo de nuevo.",
    optionsRefused: "Introduce el correo de una cuenta nueva o inicia sesión primero para añadir una llave de acceso.",
    alreadyRegistered: "Esta llave de acceso ya está registrada. Inicia sesión con ella.",
    failed: "Las llaves de acceso no funcionan en este momento. Inténtalo de nuevo.",
  },
  password: {
    passwordLabel: "Contraseña",
  },
}
