/**
 * Text a person writes into their account (a name, a passkey's name) that others read: the
 * admin console's list, a session's device line, a mail. Letters, marks, digits, spaces and
 * punctuation of any script, and the joiners emoji and Persian need; never a control
 * character (NUL is one PostgreSQL's `text` cannot hold: stored, it was a 503 "outage" the
 * user chose) nor a bidirectional override or isolate, which makes a name read as another
 * (`Ada ‮gnp.exe` shows as `Ada exe.png`).
 * @module
 */

const UNWRITABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/** Whether `value` holds a character no name may hold (see the module). */
export function hasUnwritable(value: string): boolean {
  return UNWRITABLE.test(value)
}
