import { Injectable } from '@nestjs/common';

/**
 * The current time, as one injectable provider, so that code whose rules depend on elapsed time
 * (dashboard sessions: docs/dashboard.md#sessions) can be tested by moving the clock instead of
 * sleeping. Production code never replaces it.
 */
@Injectable()
export class Clock {
  /** Now, as a new `Date`. */
  now(): Date {
    return new Date();
  }
}
