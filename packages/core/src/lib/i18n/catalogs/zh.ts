import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "无法使用该帐号登录。请重试，或改用其他帐号。"

/** Chinese (Simplified). */
export const zh: Messages = {
  dir: "ltr",
  layout: { logoAlt: "网站标志" },
  signin: {
    title: "登录",
    heading: "登录",
    or: "或",
    noProviders: "没有可用的登录方式。",
    signInWith: "使用 {provider} 登录",
    emailLabel: "电子邮箱",
    errors: {
      default: "登录时出现问题，请重试。",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked: "该邮箱地址已关联其他登录方式。为保护您的帐号安全，请使用之前的方式登录。",
      EmailSignin: "无法发送登录邮件。请检查邮箱地址后重试。",
      CredentialsSignin: "登录失败。请检查您填写的信息后重试。",
      SessionRequired: "请登录后查看此页面。",
      MissingCSRF: "此表单已过期，请重新登录。",
      AccessDenied: "您没有登录权限。",
      Verification: "该登录链接已失效，可能已过期或已被使用。请重新获取链接。",
      WebAuthnVerificationError: "无法验证您的通行密钥，请重试。",
      AccountNotLinked: "此通行密钥或邮箱属于另一个帐号。请先登录该帐号。",
      RateLimited: "登录尝试次数过多。为了您的帐号安全，请等待几分钟后再试。",
    },
  },
  signout: { title: "退出登录", heading: "退出登录", question: "确定要退出登录吗？", button: "退出登录" },
  error: {
    title: "错误",
    code: "错误代码：{code}",
    signIn: "登录",
    signInAgain: "重新登录",
    tryAgain: "重试",
    pages: {
      default: { heading: "出现问题", message: "出现问题，请稍后重试。" },
      Configuration: { heading: "服务器错误", message: "服务器配置有误。请查看服务器日志了解详情。" },
      AccessDenied: { heading: "拒绝访问", message: "您没有登录权限。" },
      Verification: { heading: "链接已失效", message: "该登录链接已失效，可能已过期或已被使用。" },
      ServiceUnavailable: { heading: "暂时无法使用", message: "暂时无法连接登录服务。未做任何更改，请稍后重试。" },
    },
  },
  verifyRequest: {
    title: "验证邮箱",
    heading: "请查收邮件",
    sent: "我们已向您发送登录链接。请在此设备上打开链接以完成登录。",
    once: "该链接只能使用一次，并会在一段时间后失效。",
    backTo: "返回 {site}",
    theSite: "网站",
  },
  confirm: {
    title: "登录",
    heading: "登录 {host}",
    continueAs: "以 {email} 的身份继续？",
    button: "登录",
    ignore: "如果您没有请求登录，请关闭此页面：在您按下按钮之前不会发生任何事情。",
  },
  email: {
    subject: "登录 {host}",
    heading: "登录 {host}",
    button: "登录",
    expires: "该链接只能使用一次，将在 {duration}后失效。",
    ignore: "如果您没有请求此邮件，可以放心忽略。",
  },
  passkey: {
    unsupported: "此浏览器不支持通行密钥。",
    cancelled: "通行密钥请求已取消或超时，请重试。",
    optionsRefused: "请输入新帐号的邮箱，或先登录后再添加通行密钥。",
    alreadyRegistered: "此通行密钥已注册，请直接用它登录。",
    failed: "通行密钥暂时无法使用，请重试。",
  },
  password: {
    passwordLabel: "密码",
  },
}
