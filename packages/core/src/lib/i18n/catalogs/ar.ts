import type { Messages } from "../catalog.js"

const TRY_ANOTHER_ACCOUNT = "تعذّر تسجيل دخولك بهذا الحساب. يُرجى المحاولة مرة أخرى أو استخدام حساب آخر."

/** Arabic: written right to left; the pages set `dir="rtl"`. */
export const ar: Messages = {
  dir: "rtl",
  layout: { logoAlt: "شعار الموقع" },
  signin: {
    title: "تسجيل الدخول",
    heading: "تسجيل الدخول",
    or: "أو",
    noProviders: "لا توجد طرق متاحة لتسجيل الدخول.",
    signInWith: "تسجيل الدخول باستخدام {provider}",
    emailLabel: "البريد الإلكتروني",
    errors: {
      default: "حدث خطأ أثناء تسجيل الدخول. يُرجى المحاولة مرة أخرى.",
      Signin: TRY_ANOTHER_ACCOUNT,
      OAuthSignin: TRY_ANOTHER_ACCOUNT,
      OAuthCallbackError: TRY_ANOTHER_ACCOUNT,
      OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
      EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
      Callback: TRY_ANOTHER_ACCOUNT,
      OAuthAccountNotLinked: "عنوان البريد الإلكتروني هذا مرتبط بطريقة أخرى لتسجيل الدخول. لحماية حسابك، سجّل الدخول بالطريقة التي استخدمتها من قبل.",
      EmailSignin: "تعذّر إرسال رسالة تسجيل الدخول. يُرجى التحقق من العنوان والمحاولة مرة أخرى.",
      CredentialsSignin: "تعذّر تسجيل الدخول. يُرجى التحقق من البيانات التي أدخلتها والمحاولة مرة أخرى.",
      SessionRequired: "يُرجى تسجيل الدخول لعرض هذه الصفحة.",
      MissingCSRF: "انتهت صلاحية هذا النموذج. يُرجى تسجيل الدخول مرة أخرى.",
      AccessDenied: "ليس لديك إذن بتسجيل الدخول.",
      Verification: "رابط تسجيل الدخول هذا لم يعد صالحًا. ربما انتهت صلاحيته أو استُخدم من قبل. يُرجى طلب رابط جديد.",
      WebAuthnVerificationError: "تعذّر التحقق من مفتاح المرور. يُرجى المحاولة مرة أخرى.",
      AccountNotLinked: "مفتاح المرور هذا أو البريد الإلكتروني يخص حسابًا آخر. سجّل الدخول إلى ذلك الحساب أولًا.",
      RateLimited: "محاولات تسجيل دخول كثيرة جدًا. حفاظًا على أمانك، يُرجى الانتظار بضع دقائق قبل المحاولة مرة أخرى.",
    },
  },
  signout: { title: "تسجيل الخروج", heading: "تسجيل الخروج", question: "هل تريد تسجيل الخروج بالتأكيد؟", button: "تسجيل الخروج" },
  error: {
    title: "خطأ",
    code: "رمز الخطأ: {code}",
    signIn: "تسجيل الدخول",
    signInAgain: "تسجيل الدخول مرة أخرى",
    tryAgain: "إعادة المحاولة",
    pages: {
      default: { heading: "حدث خطأ ما", message: "حدث خطأ ما. يُرجى المحاولة لاحقًا." },
      Configuration: { heading: "خطأ في الخادم", message: "هناك مشكلة في إعدادات الخادم. راجع سجلات الخادم لمزيد من المعلومات." },
      AccessDenied: { heading: "تم رفض الوصول", message: "ليس لديك إذن بتسجيل الدخول." },
      Verification: { heading: "الرابط لم يعد صالحًا", message: "رابط تسجيل الدخول لم يعد صالحًا. ربما انتهت صلاحيته أو استُخدم من قبل." },
      ServiceUnavailable: { heading: "غير متاح مؤقتًا", message: "تعذّر الوصول إلى خدمة تسجيل الدخول الآن. لم يتغير شيء؛ يُرجى المحاولة بعد قليل." },
    },
  },
  verifyRequest: {
    title: "تأكيد البريد",
    heading: "تحقّق من بريدك الإلكتروني",
    sent: "أرسلنا إليك رابطًا لتسجيل الدخول. افتحه على هذا الجهاز لإكمال تسجيل الدخول.",
    once: "يمكن استخدام الرابط مرة واحدة فقط، وتنتهي صلاحيته بعد مدة.",
    backTo: "العودة إلى {site}",
    theSite: "الموقع",
  },
  confirm: {
    title: "تسجيل الدخول",
    heading: "تسجيل الدخول إلى {host}",
    continueAs: "المتابعة باسم {email}؟",
    button: "تسجيل الدخول",
    ignore: "إذا لم تطلب تسجيل الدخول، فأغلق هذه الصفحة: لن يحدث شيء حتى تضغط الزر.",
  },
  email: {
    subject: "تسجيل الدخول إلى {host}",
    heading: "تسجيل الدخول إلى {host}",
    button: "تسجيل الدخول",
    expires: "يعمل الرابط مرة واحدة وتنتهي صلاحيته خلال {duration}.",
    ignore: "إذا لم تطلب هذه الرسالة، يمكنك تجاهلها بأمان.",
  },
  passkey: {
    unsupported: "هذا المتصفح لا يدعم مفاتيح المرور.",
    cancelled: "أُلغي طلب مفتاح المرور أو انتهت مهلته. يُرجى المحاولة مرة أخرى.",
    optionsRefused: "أدخل البريد الإلكتروني لحساب جديد، أو سجّل الدخول أولًا لإضافة مفتاح مرور.",
    alreadyRegistered: "مفتاح المرور هذا مسجَّل بالفعل. سجّل الدخول به بدلًا من ذلك.",
    failed: "مفاتيح المرور لا تعمل الآن. يُرجى المحاولة مرة أخرى.",
  },
  password: {
    passwordLabel: "كلمة المرور",
  },
}
