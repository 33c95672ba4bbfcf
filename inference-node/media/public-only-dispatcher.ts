import { type LookupAddress, lookup } from "node:dns";
import { Agent } from "undici";
import { isPublicAddress } from "../../protocol/url-policy.ts";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * Resolves like dns.lookup but refuses names that resolve to a non-public address. Used at connect
 * time, so a name cannot pass a check and then be re-pointed (DNS rebinding) before the connection.
 */
function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      const refused = Object.assign(new Error(`${hostname} resolves to a non-public address`), {
        code: "ENONPUBLIC",
      });
      return callback(refused, []);
    }
    const first = addresses[0];
    if (options.all || !first) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}

/** An undici dispatcher that connects only to public addresses (a refused name fails with ENONPUBLIC). */
export const publicOnly = new Agent({ connect: { lookup: publicOnlyLookup as never } });
