// The socket connector of webhook calls: it refuses link-local and cloud-metadata addresses on the
// address actually dialled, not on the URL's text, so a name that resolves there (or is made to,
// DNS rebinding) is refused too. Three checks: an IP literal before connecting, every address the
// name resolves to (the lookup the socket connects with), and the socket's remote address once
// connected, before a byte of the request is sent.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { isLinkLocalAddress } from '../core/outbound-policy.ts';

export const ALLOW_LINK_LOCAL_FLAG = '--transition-rule-webhook-allow-link-local';

export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDRESS';
}

export function forbiddenAddress(host: string, address: string): ForbiddenAddressError {
  const named = host === address ? address : `${host} (${address})`;
  return new ForbiddenAddressError(`${named} is a link-local or cloud-metadata address, refused unless ${ALLOW_LINK_LOCAL_FLAG} is set`);
}

/** A lookup that fails when any address the name resolves to is link-local. */
export function guardedLookup(base: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) {
        callback(err, address, family);
        return;
      }
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const bad = addresses.find(isLinkLocalAddress);
      if (bad !== undefined) callback(forbiddenAddress(hostname, bad), address, family);
      else callback(null, address, family);
    });
  };
}

export interface ConnectorOptions {
  /** Trusted roots for https (PEM); the system roots when undefined. */
  ca?: string;
  allowLinkLocal: boolean;
  /** Name resolution (tests inject one); the system resolver by default. */
  lookup?: LookupFunction;
  connectTimeoutMs: number;
}

export function guardedConnector(options: ConnectorOptions): buildConnector.connector {
  const tls = options.ca ? { ca: options.ca } : {};
  if (options.allowLinkLocal) {
    return buildConnector({ ...tls, timeout: options.connectTimeoutMs, ...(options.lookup ? { lookup: options.lookup } : {}) });
  }
  const base = buildConnector({ ...tls, timeout: options.connectTimeoutMs, lookup: guardedLookup(options.lookup) });
  return (connect, callback) => {
    const host = connect.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && isLinkLocalAddress(host)) {
      callback(forbiddenAddress(host, host), null);
      return;
    }
    base(connect, (err, socket) => {
      if (err) {
        callback(err, null);
        return;
      }
      const remote = socket.remoteAddress;
      if (remote !== undefined && isLinkLocalAddress(remote)) {
        socket.destroy();
        callback(forbiddenAddress(host, remote), null);
        return;
      }
      callback(null, socket);
    });
  };
}
