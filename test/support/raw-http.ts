import { connect } from 'node:net';

/** What a raw socket received before the server closed it (or the time limit passed). */
export interface RawExchange {
  text: string;
  closed: boolean;
}

/** Whether `text` holds a whole HTTP response with a Content-Length body. */
export function isCompleteResponse(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
  return end !== -1 && length !== null && text.length - end - 4 >= Number(length[1]);
}

/**
 * Sends `chunks` on a raw TCP connection to `port` and collects the reply until the server
 * closes the connection (or, with `untilResponse`, until one whole response arrived), giving
 * up (and destroying the socket) after `timeoutMs`. Generous limits, not timing assertions.
 */
export function rawExchange(
  port: number,
  chunks: string[],
  { timeoutMs = 10_000, untilResponse = false } = {},
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (untilResponse && isCompleteResponse(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ text, closed: false });
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('connect', () => chunks.forEach((chunk) => socket.write(chunk)));
  });
}

/** Splits a raw HTTP/1.1 response into status, lower-cased headers and body. */
export function parseResponse(text: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * A raw keep-alive connection the test drives step by step: write bytes, wait for a whole
 * response, see whether the server closed it.
 */
export class RawConnection {
  /** Every connection not yet closed, so a suite can cut what a test left open. */
  private static readonly live = new Set<RawConnection>();
  private text = '';
  private closedFlag = false;
  private readonly closedPromise: Promise<void>;
  private readonly socket;

  private constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.text += chunk));
    this.socket.on('error', () => undefined);
    this.closedPromise = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.closedFlag = true;
        RawConnection.live.delete(this);
        resolve();
      }),
    );
  }

  /** Opens a connection to 127.0.0.1:`port`. */
  static async open(port: number): Promise<RawConnection> {
    const connection = new RawConnection(port);
    RawConnection.live.add(connection);
    await new Promise<void>((resolve, reject) => {
      connection.socket.once('connect', () => resolve());
      connection.socket.once('error', reject);
    });
    return connection;
  }

  write(data: string): void {
    this.socket.write(data);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Resolves with the next whole response (and forgets it); rejects after `timeoutMs`. */
  async response(timeoutMs = 15_000): Promise<ReturnType<typeof parseResponse>> {
    const deadline = Date.now() + timeoutMs;
    while (!isCompleteResponse(this.text)) {
      if (Date.now() > deadline || (this.closedFlag && !isCompleteResponse(this.text))) {
        throw new Error(`no whole response (closed: ${this.closedFlag}): ${this.text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const response = parseResponse(this.text);
    this.text = '';
    return response;
  }

  /** Resolves true once the server closed the connection, false after `timeoutMs`. */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.closedPromise.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return result;
  }

  destroy(): void {
    this.socket.destroy();
  }

  /**
   * Destroys every connection still open and resolves once all have closed: a test's leftover
   * socket (a file still being written, say) must not be cut by the app's shutdown instead.
   */
  static async destroyAll(): Promise<void> {
    const left = [...RawConnection.live];
    for (const connection of left) connection.destroy();
    await Promise.all(left.map((connection) => connection.closedPromise));
  }
}
