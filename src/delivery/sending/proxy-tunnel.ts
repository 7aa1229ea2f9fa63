import { connect as netConnect, isIP, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { guardedLookup, isAllowedAddress, RefusedAddressError } from './address-policy';

/** A delivery that could not go through the outbound proxy (docs/webhooks.md#outbound-proxy). */
export class ProxyTunnelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyTunnelError';
  }
}

/** Bytes of a proxy's answer to CONNECT read before giving up on finding its end. */
const MAX_PROXY_ANSWER_BYTES = 16 * 1024;

/**
 * The outbound proxy of `WEBHOOK_PROXY_URL` as the sender uses it: where it listens and the
 * `Proxy-Authorization` value its credentials make (null without any). The credentials are
 * secrets: this never goes to a log.
 */
export interface OutboundProxy {
  host: string;
  port: number;
  authorization: string | null;
}

/**
 * The proxy of a `WEBHOOK_PROXY_URL` (`http://[user:password@]host[:port]`, port 80 when not
 * given). User name and password are percent-decoded and sent as HTTP Basic credentials.
 */
export function outboundProxy(url: URL): OutboundProxy {
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    authorization:
      user || password
        ? `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`
        : null,
  };
}

/**
 * Resolves `hostname` and applies the address policy (docs/security.md#webhook-destinations)
 * to every address, as a direct connection does.
 * @returns the first address, the one the tunnel goes to.
 * @throws RefusedAddressError when an address is not allowed; the resolver's error otherwise.
 */
function allowedAddress(hostname: string, allowPrivate: boolean): Promise<string> {
  if (isIP(hostname) !== 0) {
    return isAllowedAddress(hostname, allowPrivate)
      ? Promise.resolve(hostname)
      : Promise.reject(new RefusedAddressError(hostname, hostname));
  }
  return new Promise((resolve, reject) => {
    guardedLookup(allowPrivate)(hostname, {}, (error, address) =>
      error ? reject(error) : resolve(address as string),
    );
  });
}

/**
 * Opens a tunnel through `proxy` to `authority` (`address:port`) with HTTP CONNECT
 * (RFC 9110 §9.3.6).
 * @returns the socket, carrying the tunnel's bytes once the proxy answered 200.
 * @throws ProxyTunnelError when the proxy cannot be reached (`proxy unreachable: …`), answers
 *   anything but 200 (`proxy refused the tunnel: 407`) or something that is not HTTP, or closes
 *   the connection before answering; an error with code `UND_ERR_CONNECT_TIMEOUT` after
 *   `timeoutMs`.
 */
export function openTunnel(
  proxy: OutboundProxy,
  authority: string,
  timeoutMs: number,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: proxy.host, port: proxy.port });
    let answer = Buffer.alloc(0);
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => {
      const error = new ProxyTunnelError(`proxy did not open the tunnel within ${timeoutMs} ms`);
      Object.assign(error, { code: 'UND_ERR_CONNECT_TIMEOUT' });
      fail(error);
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (answer.length > MAX_PROXY_ANSWER_BYTES)
          fail(new ProxyTunnelError('proxy answer too long'));
        return;
      }
      socket.off('data', onData);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString('latin1'));
      if (!status) return fail(new ProxyTunnelError('proxy answered something that is not HTTP'));
      if (status[1] !== '200')
        return fail(new ProxyTunnelError(`proxy refused the tunnel: ${status[1]}`));
      settled = true;
      clearTimeout(timer);
      // Back to paused mode for undici, which reads on 'readable'; bytes after the answer
      // already belong to the tunnel.
      socket.pause();
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      socket.off('error', onError);
      socket.off('close', onClose);
      resolve(socket);
    };
    const onError = (error: NodeJS.ErrnoException) =>
      fail(
        new ProxyTunnelError(
          `proxy unreachable: ${error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message)}`,
        ),
      );
    const onClose = () =>
      fail(new ProxyTunnelError('proxy closed the connection before answering'));
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once('connect', () => {
      const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
      if (proxy.authorization) lines.push(`Proxy-Authorization: ${proxy.authorization}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  });
}

/**
 * An undici `connect` that sends every connection through `proxy` (docs/webhooks.md#outbound-proxy):
 * it resolves the target's host itself and applies the address policy first, exactly as a
 * direct connection does, then asks the proxy for a tunnel to the **checked address** (never
 * the host name, so the proxy's own DNS cannot send it elsewhere), and for `https` starts TLS
 * inside the tunnel with the host name as SNI and for certificate checks.
 * @param allowPrivate `WEBHOOK_ALLOW_PRIVATE_URLS`; the proxy's own address is not subject to it.
 * @param timeoutMs the connect time limit (`WEBHOOK_TIMEOUT_MS`), DNS, tunnel and TLS.
 */
export function proxyConnector(
  proxy: OutboundProxy,
  allowPrivate: boolean,
  timeoutMs: number,
): buildConnector.connector {
  const tls = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const { hostname, protocol } = options;
    const port = Number(options.port) || (protocol === 'https:' ? 443 : 80);
    allowedAddress(hostname, allowPrivate)
      .then((address) =>
        openTunnel(proxy, `${isIP(address) === 6 ? `[${address}]` : address}:${port}`, timeoutMs),
      )
      .then(
        (socket) => {
          if (protocol !== 'https:') return callback(null, socket);
          tls(
            {
              ...options,
              httpSocket: socket,
              servername: isIP(hostname) === 0 ? hostname : undefined,
            },
            callback,
          );
        },
        (error: Error) => callback(error, null),
      );
  };
}
