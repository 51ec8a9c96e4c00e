/**
 * 42 (the coding school network) intranet sign-in.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** The user record itself: what `GET /v2/users/:id` and `GET /v2/me` share. */
export interface UserData {
  id: number
  email: string
  login: string
  first_name: string
  last_name: string
  usual_full_name: string
  usual_first_name: string | null
  displayname: string
  url: string
  /** `"hidden"` when the user hides it. */
  phone: string | null
  image: Image
  "staff?": boolean
  correction_point: number
  pool_month: string | null
  pool_year: string | null
  location?: string | null
  wallet: number
  anonymize_date?: string
  created_at?: string
  updated_at?: string | null
  alumni?: boolean
}

/** Profile picture: `link` is the original, `versions` holds resized copies. */
export interface Image {
  link: string | null
  versions: { large: string | null; medium: string | null; small: string | null; micro: string | null }
}

/** The user's enrolment in one cursus (curriculum), with level and skills. */
export interface CursusUser {
  id: number
  cursus_id: number
  grade: string | null
  level: number
  skills: Array<{ id: number; name: string; level: number }>
  begin_at: string | null
  end_at: string | null
  blackholed_at: string | null
  has_coalition: boolean
  created_at: string
  updated_at: string | null
  cursus: { id: number; name: string; slug: string; created_at: string }
  [key: string]: unknown
}

/** One project the user registered for, and how it went. */
export interface ProjectUser {
  id: number
  occurrence: number
  final_mark: number | null
  status: "searching_a_group" | "creating_group" | "waiting_for_correction" | "in_progress" | "finished" | (string & {})
  "validated?": boolean | null
  current_team_id: number | null
  project: { id: number; name: string; slug: string; parent_id: number | null }
  cursus_ids: number[]
  marked: boolean
  marked_at: string | null
  retriable_at: string | null
  created_at: string
  updated_at: string | null
}

/** An achievement the user earned. */
export interface Achievement {
  id: number
  name: string
  description: string
  tier: "none" | "easy" | "medium" | "hard" | "challenge"
  kind: "scolarity" | "project" | "pedagogy" | "social" | (string & {})
  visible: boolean
  image: string | null
  nbr_of_success: number | null
  users_url: string
}

/** A language the user speaks, by preference order (`position`). */
export interface LanguagesUser {
  id: number
  language_id: number
  user_id: number
  position: number
  created_at: string
}

/** A title the user holds; `selected` is the one shown with the login. */
export interface TitlesUser {
  id: number
  user_id: number
  title_id: number
  selected: boolean
  created_at: string
  updated_at: string | null
}

/** An expertise the user declared, with a 1–5 `value`. */
export interface ExpertisesUser {
  id: number
  expertise_id: number
  user_id: number
  interested: boolean
  value: number
  contact_me: boolean
  created_at: string
}

/** A campus the user belongs to. */
export interface Campus {
  id: number
  name: string
  time_zone: string
  language: { id: number; name: string; identifier: string; created_at: string; updated_at: string | null }
  users_count: number
  vogsphere_id: number | null
  country: string
  address: string
  zip: string
  city: string
  website: string
  facebook: string
  twitter: string
  active: boolean
  public?: boolean
  email_extension: string | null
  default_hidden_phone: boolean
}

/** The user's link to a campus; `is_primary` marks the main one. */
export interface CampusUser {
  id: number
  user_id: number
  campus_id: number
  is_primary: boolean
  created_at: string
  updated_at: string | null
}

/** `GET /v2/me` (https://api.intra.42.fr/apidoc/2.0/users/me.html): the user record and its relations. */
export interface FortyTwoProfile extends UserData {
  groups?: Array<{ id: number; name: string }>
  cursus_users: CursusUser[]
  projects_users?: ProjectUser[]
  languages_users?: LanguagesUser[]
  achievements?: Achievement[]
  titles?: Array<{ id: number; name: string }>
  titles_users?: TitlesUser[]
  expertises_users?: ExpertisesUser[]
  campus: Campus[]
  campus_users?: CampusUser[]
  [key: string]: unknown
}

export default function FortyTwo(options: OAuthUserConfig<FortyTwoProfile> = {}): OAuthConfig<FortyTwoProfile> {
  return {
    id: "42-school",
    name: "42 School",
    type: "oauth",
    authorization: { url: "https://api.intra.42.fr/oauth/authorize", params: { scope: "public" } },
    token: "https://api.intra.42.fr/oauth/token",
    userinfo: "https://api.intra.42.fr/v2/me",
    profile(profile) {
      return { id: String(profile.id), name: profile.usual_full_name, email: profile.email, image: profile.image?.link ?? null }
    },
    style: { bg: "#000", text: "#fff" },
    options,
  }
}
