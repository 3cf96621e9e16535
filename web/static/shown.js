// The snapshot the page shows and the host's login. This module imports nothing, and the
// entry imports it first, so it runs before i18n.js waits for the catalogues to be fetched:
// `window.state` reads null, not a ReferenceError, until the first snapshot is drawn
// (scripts and the browser tests poll it from the moment the page loads).
export const page = { state: null, csrf: null, shown: { process: null, version: -1 } };

Object.defineProperty(window, "state", { get: () => page.state, configurable: true });
