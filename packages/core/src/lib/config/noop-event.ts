/**
 * The handler of events the app did not subscribe to: a leaf, so the request context can ask
 * whether an event is subscribed without importing the configuration's resolver.
 * @module
 */

/** The handler of events the app did not subscribe to; hot paths skip calling it. */
export const noopEvent = async (_message: unknown): Promise<void> => {}
