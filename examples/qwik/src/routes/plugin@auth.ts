import { QwikAuth$ } from "@portcullis/qwik"
import { authConfig } from "../auth"

export const { onRequest, useSession, useSignIn, useSignOut } = QwikAuth$(() => authConfig())
