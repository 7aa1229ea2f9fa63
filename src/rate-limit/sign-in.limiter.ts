import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** The window dashboard sign-in attempts are counted in: 15 minutes (docs/security.md#sign-in-guessing). */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Tells whether the user with an email has signed in from an address recently (see
 * `SessionsService.signedInRecentlyFrom`); asked only once the email's limit is reached.
 */
export type KnownAddressCheck = () => Promise<boolean>;

/**
 * The dashboard's sign-in limits (docs/security.md#sign-in-guessing), in fixed 15-minute
 * windows in Redis shared by every API process. Each well-formed attempt counts, before its
 * credentials are checked, under up to three counters:
 *
 * - the client IP (`RATE_LIMIT_SIGN_IN_PER_IP`, default 50), whatever the email;
 * - the email from that IP (`RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP`, default 10): the limit a
 *   guesser at one address meets, which never touches the user at another address;
 * - the email from every address together (`RATE_LIMIT_SIGN_IN_PER_EMAIL`, default 30), only
 *   for attempts the two limits above let through: the bound on guesses spread over many
 *   addresses. Past it, an address the user has signed in from recently may still try
 *   (within its own two limits); any other is refused until the window ends.
 *
 * A successful sign-in clears the counter of its email and IP only: the email's total keeps
 * counting, so a user signing in does not hand a distributed guesser a fresh allowance.
 * Emails are counted case-insensitively under a SHA-256 (no email in Redis in clear). Like
 * the other limits it fails open without Redis: every attempt is let through to the
 * credentials check (docs/security.md#sign-in-guessing).
 */
@Injectable()
export class SignInLimiter {
  constructor(
    private readonly storage: RedisThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  /**
   * Counts one attempt of `email` from `ip`, then applies the limits above.
   *
   * @param ip the client IP (as `TRUST_PROXY` gives it).
   * @param email the email as typed (trimmed and lower-cased here).
   * @param isKnownAddress asked only when the email's own limit is exceeded: whether its user
   *   signed in from `ip` recently; true lets the attempt through.
   * @returns seconds until the attempt may be retried (the window's time left, at least 1)
   *   when it is refused, else 0.
   */
  async hit(ip: string, email: string, isKnownAddress: KnownAddressCheck): Promise<number> {
    const [byIp, byEmailAndIp] = await Promise.all([
      this.storage.increment(
        `sign-in:ip:${ip}`,
        SIGN_IN_WINDOW_MS,
        this.config.rateLimitSignInPerIp,
      ),
      this.storage.increment(
        emailAndIpCounter(email, ip),
        SIGN_IN_WINDOW_MS,
        this.config.rateLimitSignInPerEmailAndIp,
      ),
    ]);
    const ownLimits = Math.max(byIp.timeToBlockExpire, byEmailAndIp.timeToBlockExpire);
    // Refused at its own address: not counted against the email, so that one address that
    // keeps trying cannot use up the email's total and close it to every other address.
    if (ownLimits > 0) return ownLimits;
    const byEmail = await this.storage.increment(
      emailCounter(email),
      SIGN_IN_WINDOW_MS,
      this.config.rateLimitSignInPerEmail,
    );
    if (byEmail.timeToBlockExpire > 0 && !(await isKnownAddress())) {
      return byEmail.timeToBlockExpire;
    }
    return 0;
  }

  /**
   * Clears the counter of `email` from `ip` after a successful sign-in there; the IP's and
   * the email's totals stay.
   */
  async succeeded(ip: string, email: string): Promise<void> {
    await this.storage.reset(emailAndIpCounter(email, ip));
  }
}

/** The email as counted: trimmed and lower-cased, as sign-in finds its user. */
const normalized = (email: string) => email.trim().toLowerCase();

/** The email's counter: SHA-256 of the normalised address. */
function emailCounter(email: string): string {
  return `sign-in:email:${createHash('sha256').update(normalized(email), 'utf8').digest('hex')}`;
}

/** The counter of an email from one IP: SHA-256 of the normalised address and the IP. */
function emailAndIpCounter(email: string, ip: string): string {
  const digest = createHash('sha256')
    .update(`${normalized(email)}\n${ip}`, 'utf8')
    .digest('hex');
  return `sign-in:email-ip:${digest}`;
}
