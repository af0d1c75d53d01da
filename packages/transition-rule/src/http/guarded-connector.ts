// The socket connector of webhook calls: it applies the address policy (address-policy.ts) to the
// address actually dialled, not to the URL's text, so a name that resolves to a refused address
// (or is made to, DNS rebinding) is refused too. Three checks: an IP literal before connecting,
// every address the name resolves to (the lookup the socket connects with), and the socket's
// remote address once connected, before a byte of the request is sent.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { addressRefusal, type AddressPolicy } from '../core/address-policy.ts';

export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDRESS';
}

export function forbiddenAddress(host: string, address: string, why: string): ForbiddenAddressError {
  return new ForbiddenAddressError(host === address ? why : `${host} resolves to ${why}`);
}

/** A lookup that fails when any address the name resolves to is refused by the policy. */
export function guardedLookup(policy: AddressPolicy, base: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) {
        callback(err, address, family);
        return;
      }
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      for (const a of addresses) {
        const why = addressRefusal(a, policy);
        if (why !== undefined) {
          callback(forbiddenAddress(hostname, a, why), address, family);
          return;
        }
      }
      callback(null, address, family);
    });
  };
}

export interface ConnectorOptions {
  /** Trusted roots for https (PEM); the system roots when undefined. */
  ca?: string;
  policy: AddressPolicy;
  /** Name resolution (tests inject one); the system resolver by default. */
  lookup?: LookupFunction;
  connectTimeoutMs: number;
}

export function guardedConnector(options: ConnectorOptions): buildConnector.connector {
  const tls = options.ca ? { ca: options.ca } : {};
  const { policy } = options;
  const base = buildConnector({ ...tls, timeout: options.connectTimeoutMs, lookup: guardedLookup(policy, options.lookup) });
  return (connect, callback) => {
    const host = connect.hostname.replace(/^\[|\]$/g, '');
    const literalRefusal = isIP(host) !== 0 ? addressRefusal(host, policy) : undefined;
    if (literalRefusal !== undefined) {
      callback(forbiddenAddress(host, host, literalRefusal), null);
      return;
    }
    base(connect, (err, socket) => {
      if (err) {
        callback(err, null);
        return;
      }
      const remote = socket.remoteAddress;
      const why = remote === undefined ? undefined : addressRefusal(remote, policy);
      if (why !== undefined) {
        socket.destroy();
        callback(forbiddenAddress(host, remote!, why), null);
        return;
      }
      callback(null, socket);
    });
  };
}
