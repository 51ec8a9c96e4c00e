import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "Não foi possível entrar com essa conta. Tente novamente ou use outra conta."

/** Portuguese (written so it reads well in Brazil and Portugal). */
export const pt: Messages = {
  dir: "ltr",
  layout: { logoAlt: "Logotipo do site" },
  signin: {
    title: "Entrar",
    heading: "Entrar",
    or: "ou",
    noProviders: "Nenhum método de acesso está disponível.",
    signInWith: "Entrar com {provider}",
    emailLabel: "E-mail",
    errors: {
      default: "Algo deu errado ao entrar. Tente novamente.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "Este endereço de e-mail já está vinculado a outra forma de acesso. Para proteger sua conta, entre da mesma forma que antes.",
      EmailSignin: "Não foi possível enviar o e-mail de acesso. Verifique o endereço e tente novamente.",
      CredentialsSignin: "Não foi possível entrar. Verifique os dados informados e tente novamente.",
      SessionRequired: "Entre para ver esta página.",
      MissingCSRF: "Este formulário expirou. Tente entrar novamente.",
      AccessDenied: "Você não tem permissão para entrar.",
      Verification: "Este link de acesso não é mais válido. Ele pode ter expirado ou já ter sido usado. Solicite um novo.",
      WebAuthnVerificationError: "Não foi possível verificar sua chave de acesso. Tente novamente.",
      AccountNotLinked: "Esta chave de acesso ou este e-mail pertence a outra conta. Entre nessa conta primeiro.",
      RateLimited: "Muitas tentativas de acesso. Para sua segurança, aguarde alguns minutos antes de tentar novamente.",
    },
  },
  signout: { title: "Sair", heading: "Sair", question: "Tem certeza de que deseja sair?", button: "Sair" },
  error: {
    title: "Erro",
    code: "Código do erro: {code}",
    signIn: "Entrar",
    signInAgain: "Entrar novamente",
    tryAgain: "Tentar novamente",
    pages: {
      default: { heading: "Algo deu errado", message: "Algo deu errado. Tente novamente mais tarde." },
      Configuration: { heading: "Erro no servidor", message: "Há um problema na configuração do servidor. Consulte os registros do servidor para mais informações." },
      AccessDenied: { heading: "Acesso negado", message: "Você não tem permissão para entrar." },
      Verification: { heading: "Link inválido", message: "O link de acesso não é mais válido. Ele pode ter expirado ou já ter sido usado." },
      ServiceUnavailable: { heading: "Temporariamente indisponível", message: "Não foi possível contatar o serviço de acesso agora. Nada foi alterado; tente novamente em instantes." },
    },
  },
  verifyRequest: {
    title: "Verificação",
    heading: "Verifique seu e-mail",
    sent: "Enviamos um link de acesso para você. Abra-o neste dispositivo para concluir o acesso.",
    once: "O link só pode ser usado uma vez e expira depois de algum tempo.",
    backTo: "Voltar para {site}",
    theSite: "o site",
  },
  confirm: {
    title: "Entrar",
    heading: "Entrar em {host}",
    continueAs: "Continuar como {email}?",
    button: "Entrar",
    ignore: "Se você não pediu para entrar, feche esta página: nada acontece até você apertar o botão.",
  },
  email: {
    subject: "Entrar em {host}",
    heading: "Entrar em {host}",
    button: "Entrar",
    expires: "O link funciona uma única vez e expira em {duration}.",
    ignore: "Se você não solicitou este e-mail, pode ignorá-lo com segurança.",
  },
  passkey: {
    unsupported: "Este navegador não oferece suporte a chaves de acesso.",
    cancelled: "A solicitação da chave de acesso foi cancelada ou expirou. Tente novamente.",
    optionsRefused: "Informe o e-mail de uma conta nova ou entre primeiro para adicionar uma chave de acesso.",
    alreadyRegistered: "Esta chave de acesso já está registrada. Entre com ela.",
    failed: "As chaves de acesso não estão funcionando agora. Tente novamente.",
  },
  password: {
    passwordLabel: "Senha",
  },
}
