/**
 * Text the fixture server (fixture-server.ts) puts in its answers that the Worker tests look for: a
 * plain module, so tests in workerd can import it without the server's node:http.
 */

/** What the fixture's OpenAI-style 401 says of the key it was sent, masked the way OpenAI masks it. */
export const UPSTREAM_KEY_FRAGMENT = "sk-fixt************5678";
