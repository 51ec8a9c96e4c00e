import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "Impossible de vous connecter avec ce compte. Veuillez réessayer ou utiliser un autre compte."

/** French. */
export const fr: Messages = {
  dir: "ltr",
  layout: { logoAlt: "Logo du site" },
  signin: {
    title: "Connexion",
    heading: "Se connecter",
    or: "ou",
    noProviders: "Aucune méthode de connexion n’est disponible.",
    signInWith: "Se connecter avec {provider}",
    emailLabel: "E-mail",
    errors: {
      default: "Une erreur est survenue lors de la connexion. Veuillez réessayer.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "Cette adresse e-mail est déjà associée à un autre mode de connexion. Pour protéger votre compte, connectez-vous de la même manière que la dernière fois.",
      EmailSignin: "Impossible d’envoyer l’e-mail de connexion. Vérifiez l’adresse et réessayez.",
      CredentialsSignin: "La connexion a échoué. Vérifiez les informations saisies et réessayez.",
      SessionRequired: "Veuillez vous connecter pour voir cette page.",
      MissingCSRF: "Ce formulaire a expiré. Veuillez vous reconnecter.",
      AccessDenied: "Vous n’avez pas l’autorisation de vous connecter.",
      Verification: "Ce lien de connexion n’est plus valide. Il a peut-être expiré ou déjà été utilisé. Veuillez en demander un nouveau.",
      WebAuthnVerificationError: "Impossible de vérifier votre clé d’accès. Veuillez réessayer.",
      AccountNotLinked: "Cette clé d’accès ou cette adresse e-mail appartient à un autre compte. Connectez-vous d’abord à ce compte.",
      RateLimited: "Trop de tentatives de connexion. Par sécurité, veuillez patienter quelques minutes avant de réessayer.",
    },
  },
  signout: { title: "Déconnexion", heading: "Se déconnecter", question: "Voulez-vous vraiment vous déconnecter ?", button: "Se déconnecter" },
  error: {
    title: "Erreur",
    code: "Code d’erreur : {code}",
    signIn: "Se connecter",
    signInAgain: "Se reconnecter",
    tryAgain: "Réessayer",
    pages: {
      default: { heading: "Une erreur est survenue", message: "Une erreur est survenue. Veuillez réessayer plus tard." },
      Configuration: { heading: "Erreur du serveur", message: "La configuration du serveur pose problème. Consultez les journaux du serveur pour plus d’informations." },
      AccessDenied: { heading: "Accès refusé", message: "Vous n’avez pas l’autorisation de vous connecter." },
      Verification: { heading: "Lien expiré", message: "Le lien de connexion n’est plus valide. Il a peut-être expiré ou déjà été utilisé." },
      ServiceUnavailable: { heading: "Service momentanément indisponible", message: "Le service de connexion est injoignable pour le moment. Rien n’a été modifié ; réessayez dans un instant." },
    },
  },
  verifyRequest: {
    title: "Vérification",
    heading: "Consultez vos e-mails",
    sent: "Nous vous avons envoyé un lien de connexion. Ouvrez-le sur cet appareil pour terminer la connexion.",
    once: "Le lien ne peut être utilisé qu’une fois et expire au bout d’un certain temps.",
    backTo: "Retour à {site}",
    theSite: "le site",
  },
  confirm: {
    title: "Connexion",
    heading: "Se connecter à {host}",
    continueAs: "Continuer en tant que {email} ?",
    button: "Se connecter",
    ignore: "Si vous n’avez pas demandé à vous connecter, fermez cette page : rien ne se passe tant que vous n’appuyez pas sur le bouton.",
  },
  email: {
    subject: "Connexion à {host}",
    heading: "Se connecter à {host}",
    button: "Se connecter",
    expires: "Le lien fonctionne une seule fois et expire dans {duration}.",
    ignore: "Si vous n’avez pas demandé cet e-mail, vous pouvez l’ignorer.",
  },
  passkey: {
    unsupported: "Ce navigateur ne prend pas en charge les clés d’accès.",
    cancelled: "La demande de clé d’accès a été annulée ou a expiré. Veuillez réessayer.",
    optionsRefused: "Saisissez l’e-mail d’un nouveau compte, ou connectez-vous d’abord pour ajouter une clé d’accès.",
    alreadyRegistered: "Cette clé d’accès est déjà enregistrée. Connectez-vous plutôt avec elle.",
    failed: "Les clés d’accès ne fonctionnent pas pour le moment. Veuillez réessayer.",
  },
  password: {
    passwordLabel: "Mot de passe",
  },
}
