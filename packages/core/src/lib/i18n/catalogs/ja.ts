import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "このアカウントではサインインできませんでした。もう一度お試しいただくか、別のアカウントをご利用ください。"

/** Japanese. */
export const ja: Messages = {
  dir: "ltr",
  layout: { logoAlt: "サイトのロゴ" },
  signin: {
    title: "サインイン",
    heading: "サインイン",
    or: "または",
    noProviders: "利用できるサインイン方法がありません。",
    signInWith: "{provider} でサインイン",
    emailLabel: "メールアドレス",
    errors: {
      default: "サインイン中に問題が発生しました。もう一度お試しください。",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked:
        "このメールアドレスは別のサインイン方法に関連付けられています。アカウントを守るため、以前と同じ方法でサインインしてください。",
      EmailSignin: "サインイン用のメールを送信できませんでした。アドレスを確認して、もう一度お試しください。",
      CredentialsSignin: "サインインできませんでした。入力内容を確認して、もう一度お試しください。",
      SessionRequired: "このページを表示するにはサインインしてください。",
      MissingCSRF: "このフォームの有効期限が切れました。もう一度サインインしてください。",
      AccessDenied: "サインインする権限がありません。",
      Verification: "このサインインリンクは無効です。有効期限が切れているか、すでに使用されています。新しいリンクをリクエストしてください。",
      WebAuthnVerificationError: "パスキーを確認できませんでした。もう一度お試しください。",
      AccountNotLinked: "このパスキーまたはメールアドレスは別のアカウントのものです。先にそのアカウントにサインインしてください。",
      RateLimited: "サインインの試行回数が多すぎます。安全のため、数分待ってからもう一度お試しください。",
    },
  },
  signout: { title: "サインアウト", heading: "サインアウト", question: "サインアウトしてもよろしいですか？", button: "サインアウト" },
  error: {
    title: "エラー",
    code: "エラーコード: {code}",
    signIn: "サインイン",
    signInAgain: "もう一度サインイン",
    tryAgain: "再試行",
    pages: {
      default: { heading: "問題が発生しました", message: "問題が発生しました。しばらくしてからもう一度お試しください。" },
      Configuration: { heading: "サーバーエラー", message: "サーバーの設定に問題があります。詳しくはサーバーのログを確認してください。" },
      AccessDenied: { heading: "アクセスが拒否されました", message: "サインインする権限がありません。" },
      Verification: { heading: "リンクが無効です", message: "サインインリンクは無効です。有効期限が切れているか、すでに使用されている可能性があります。" },
      ServiceUnavailable: { heading: "一時的に利用できません", message: "現在サインインサービスに接続できません。変更は行われていません。しばらくしてからもう一度お試しください。" },
    },
  },
  verifyRequest: {
    title: "メールの確認",
    heading: "メールをご確認ください",
    sent: "サインイン用のリンクを送信しました。サインインを完了するには、この端末でリンクを開いてください。",
    once: "リンクは一度だけ使用でき、一定時間が経つと無効になります。",
    backTo: "{site} に戻る",
    theSite: "サイト",
  },
  confirm: {
    title: "サインイン",
    heading: "{host} にサインイン",
    continueAs: "{email} として続けますか？",
    button: "サインイン",
    ignore: "サインインをリクエストしていない場合は、このページを閉じてください。ボタンを押さない限り何も起こりません。",
  },
  email: {
    subject: "{host} へのサインイン",
    heading: "{host} にサインイン",
    button: "サインイン",
    expires: "このリンクは一度だけ使用でき、{duration}後に無効になります。",
    ignore: "このメールに心当たりがない場合は、無視してください。",
  },
  passkey: {
    unsupported: "このブラウザはパスキーに対応していません。",
    cancelled: "パスキーのリクエストがキャンセルされたか、タイムアウトしました。もう一度お試しください。",
    optionsRefused: "新しいアカウントのメールアドレスを入力するか、先にサインインしてからパスキーを追加してください。",
    alreadyRegistered: "このパスキーはすでに登録されています。このパスキーでサインインしてください。",
    failed: "現在パスキーを利用できません。もう一度お試しください。",
  },
  password: {
    passwordLabel: "パスワード",
  },
}
