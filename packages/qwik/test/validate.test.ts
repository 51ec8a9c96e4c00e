// The action validators on their own: importing the package entry would load Qwik City,
// which only resolves inside a Qwik app (see e2e/qwik.test.ts for the actions end to end).
import { describe, expect, it } from "vitest"
import { failureValue, validateSignIn, validateSignOut, validationSuccess } from "@portcullis/qwik/lib/validate"

const origin = "http://localhost:5173"

/** The action's value as Qwik City builds it from a validator result. */
function actionValue(result: ReturnType<typeof validateSignIn> | ReturnType<typeof validateSignOut>) {
  return result.success ? validationSuccess : failureValue(result)
}

describe("useSignIn validation (spec §4.3 shapes)", () => {
  it("fails a non-string providerId with every field key present", () => {
    expect(actionValue(validateSignIn({ providerId: 42 }, origin))).toStrictEqual({
      failed: true,
      fieldErrors: { authorizationParams: undefined, options: undefined, providerId: ["Expected string, received number"], redirectTo: undefined },
      formErrors: [],
    })
  })

  it("fails a non-string or off-site redirectTo", () => {
    for (const redirectTo of [["/a"], "https://evil.example/", "//evil.example/", "javascript:alert(1)"]) {
      const value = actionValue(validateSignIn({ providerId: "github", redirectTo }, origin))
      expect(value).toMatchObject({ failed: true, formErrors: [] })
      expect(Object.keys((value as { fieldErrors: object }).fieldErrors).sort()).toEqual(["authorizationParams", "options", "providerId", "redirectTo"])
      expect((value as { fieldErrors: { redirectTo: string[] } }).fieldErrors.redirectTo).toHaveLength(1)
    }
  })

  it("fails non-object options (and a non-string options.redirectTo)", () => {
    for (const options of ["redirect=false", ["a"], null, 7]) {
      expect(actionValue(validateSignIn({ options }, origin))).toStrictEqual({
        failed: true,
        fieldErrors: { authorizationParams: undefined, options: [expect.stringMatching(/^Expected object, received /)], providerId: undefined, redirectTo: undefined },
        formErrors: [],
      })
    }
    expect(validateSignIn({ options: { redirectTo: 5 } }, origin)).toMatchObject({ success: false, error: { fieldErrors: { options: ["redirectTo: Expected string, received number"] } } })
  })

  it("fails authorizationParams that are not a string, URLSearchParams or record of strings", () => {
    expect(validateSignIn({ authorizationParams: 3 }, origin)).toMatchObject({ success: false, status: 400, error: { fieldErrors: { authorizationParams: [expect.any(String)] } } })
    expect(validateSignIn({ authorizationParams: { prompt: 1 } }, origin)).toMatchObject({ success: false, error: { fieldErrors: { authorizationParams: ["prompt: Expected string"] } } })
  })

  it("reports several bad fields at once", () => {
    const result = validateSignIn({ providerId: false, redirectTo: 1, options: "x" }, origin)
    expect(result.success).toBe(false)
    expect(actionValue(result)).toMatchObject({ fieldErrors: { providerId: [expect.any(String)], redirectTo: [expect.any(String)], options: [expect.any(String)], authorizationParams: undefined } })
  })

  it("puts a non-object input in formErrors", () => {
    expect(actionValue(validateSignIn("providerId=github", origin))).toStrictEqual({
      failed: true,
      fieldErrors: { authorizationParams: undefined, options: undefined, providerId: undefined, redirectTo: undefined },
      formErrors: ["Expected object, received string"],
    })
  })

  it("accepts valid input, drops unknown keys, and the success value is all-undefined", () => {
    const result = validateSignIn({ providerId: "credentials", redirectTo: `${origin}/account`, options: { username: "ada", redirectTo: "/x" }, authorizationParams: { prompt: "login" }, extra: 1 }, origin)
    expect(result).toStrictEqual({ success: true, data: { providerId: "credentials", redirectTo: `${origin}/account`, options: { username: "ada", redirectTo: "/x" }, authorizationParams: { prompt: "login" } } })
    expect(actionValue(result)).toStrictEqual({ failed: undefined, fieldErrors: undefined, formErrors: undefined })
    expect(validateSignIn({ authorizationParams: new URLSearchParams("a=b") }, origin).success).toBe(true)
    expect(validateSignIn({}, origin)).toStrictEqual({ success: true, data: {} })
  })
})

describe("useSignOut validation", () => {
  it("fails a bad redirectTo with the one-field shape", () => {
    expect(actionValue(validateSignOut({ redirectTo: 1 }, origin))).toStrictEqual({ failed: true, fieldErrors: { redirectTo: ["Expected string, received number"] }, formErrors: [] })
    expect(actionValue(validateSignOut({ redirectTo: "https://evil.example" }, origin))).toMatchObject({ failed: true, fieldErrors: { redirectTo: [expect.any(String)] } })
  })

  it("succeeds with or without redirectTo", () => {
    expect(actionValue(validateSignOut({ redirectTo: "/" }, origin))).toStrictEqual(validationSuccess)
    expect(validateSignOut({}, origin)).toStrictEqual({ success: true, data: {} })
  })
})
