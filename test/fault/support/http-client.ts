import { request as httpRequest, type Agent } from 'node:http';

/** `http`: node:http, by default without keep-alive (`agent: false`); `fetch`: Node's global fetch (keep-alive). */
export type Transport = 'http' | 'fetch';

/** One answer, or the transport error when there was none. */
export interface HttpAnswer {
  status: number | null;
  /** The parsed JSON body, or undefined when it was not JSON. */
  json: unknown;
  text: string;
  /** The transport error (`ECONNRESET: socket hang up`, …) when no answer came. */
  error?: string;
  startedAt: number;
  answeredAt: number;
  /** node:http only: the request went out on a kept-alive connection. */
  reusedSocket?: boolean;
  /** The answer said `Connection: close` (the client will not send on that connection again). */
  connectionClose?: boolean;
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  transport?: Transport;
  /** node:http only: the agent (`false`, the default, opens a connection per request). */
  agent?: Agent | false;
  timeoutMs?: number;
}

/** Sends one JSON request and never throws: transport failures come back in `error`. */
export async function requestJson(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  options: RequestOptions = {},
): Promise<HttpAnswer> {
  const startedAt = Date.now();
  const headers: Record<string, string> = {};
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const timeoutMs = options.timeoutMs ?? 60_000;

  if ((options.transport ?? 'http') === 'fetch') {
    try {
      const res = await fetch(new URL(path, baseUrl), {
        method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      return {
        status: res.status,
        json: parse(text),
        text,
        startedAt,
        answeredAt: Date.now(),
        connectionClose: res.headers.get('connection')?.toLowerCase() === 'close',
      };
    } catch (error) {
      return failure(error, startedAt);
    }
  }

  return new Promise((resolve) => {
    const req = httpRequest(
      new URL(path, baseUrl),
      {
        method,
        headers:
          payload === undefined
            ? headers
            : { ...headers, 'content-length': Buffer.byteLength(payload) },
        agent: options.agent ?? false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? null,
            json: parse(text),
            text,
            startedAt,
            answeredAt: Date.now(),
            reusedSocket: req.reusedSocket,
            connectionClose: res.headers.connection?.toLowerCase() === 'close',
          });
        });
        res.on('error', (error) =>
          resolve({ ...failure(error, startedAt), reusedSocket: req.reusedSocket }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) =>
      resolve({ ...failure(error, startedAt), reusedSocket: req.reusedSocket }),
    );
    req.end(payload);
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function failure(error: unknown, startedAt: number): HttpAnswer {
  const e = error as {
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(error);
  return {
    status: null,
    json: undefined,
    text: '',
    error: code && !message.includes(code) ? `${code}: ${message}` : message,
    startedAt,
    answeredAt: Date.now(),
  };
}

/** Whether a body is the service's error envelope `{error, message}` (strings). */
export function isErrorEnvelope(json: unknown): boolean {
  const body = json as { error?: unknown; message?: unknown } | undefined;
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.error === 'string' &&
    typeof body.message === 'string' &&
    !('statusCode' in body)
  );
}

/** Phones `+1<area>555<nnnn>`: 40,000 valid US numbers, one per index. */
export function phoneAt(index: number): string {
  const areas = ['646', '212', '917', '718'];
  const area = areas[Math.floor(index / 10_000)];
  if (area === undefined) throw new Error(`phone index ${index} out of range`);
  return `+1${area}555${String(index % 10_000).padStart(4, '0')}`;
}
