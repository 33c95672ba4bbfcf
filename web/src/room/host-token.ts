/**
 * The host token of each room this browser created (the create response's `host_token`), kept in this
 * browser's localStorage under the room's id and nowhere else: it goes out only as the X-Host-Token
 * header of that room's host controls, never in a URL or a room socket. localStorage, not
 * sessionStorage, so the creator's other tabs (the room page opened from Translate) are the host too.
 */
const key = (conversationId: string) => `voxedge.room.${conversationId}.host`;

export const hostTokens = {
  get(conversationId: string): string | null {
    try {
      return localStorage.getItem(key(conversationId));
    } catch {
      return null;
    }
  },
  set(conversationId: string, token: string): void {
    try {
      localStorage.setItem(key(conversationId), token);
    } catch {
      // storage refused: this browser cannot act as the host, the room itself works
    }
  },
  /** The room has ended: its token is of no more use. */
  forget(conversationId: string): void {
    try {
      localStorage.removeItem(key(conversationId));
    } catch {
      // nothing kept
    }
  },
};
