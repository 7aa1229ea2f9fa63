/** A token exchange's answer: `expires_in` is the token's lifetime in seconds. */
export interface ExchangedToken {
  access_token: string;
  expires_in: number;
}

/**
 * Holds the bearer token of one API key: exchanges on first use, reuses the token until
 * `marginMs` before it expires (at most half its lifetime early), and shares one exchange
 * among concurrent callers (docs/client.md#tokens).
 */
export class TokenCache {
  private current: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly exchange: () => Promise<ExchangedToken>,
    private readonly marginMs: number,
    private readonly now: () => number,
  ) {}

  /** The current token, exchanging for a new one first when it is due. */
  get(): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) {
      return Promise.resolve(this.current.value);
    }
    this.pending ??= this.refresh().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets `value` (answered 401: expired early or revoked), so the next get() exchanges. */
  invalidate(value: string): void {
    if (this.current?.value === value) this.current = undefined;
  }

  private async refresh(): Promise<string> {
    // The lifetime counts from before the request: a slow exchange only refreshes earlier.
    const sentAt = this.now();
    const token = await this.exchange();
    const lifetimeMs = token.expires_in * 1000;
    this.current = {
      value: token.access_token,
      refreshAt: sentAt + lifetimeMs - Math.min(this.marginMs, lifetimeMs / 2),
    };
    return token.access_token;
  }
}
