import { SolidAuth } from "@portcullis/solid-start"
import { authOptions } from "~/auth"

export const { GET, POST } = SolidAuth(authOptions)
