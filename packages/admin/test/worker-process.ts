/**
 * The line protocol of the admin package's two-process tests: a worker (`fixtures/*-worker.ts`)
 * answers each command on stdin with one line on stdout; `nextLine` waits for it, and fails
 * with the worker's stderr if it exits first. Shared with the other packages' two-process
 * tests through `@portcullis/adapter-test`.
 */
export { nextLine } from "@portcullis/adapter-test"
