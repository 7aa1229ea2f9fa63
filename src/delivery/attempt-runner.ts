import { Injectable } from '@nestjs/common';
import { AttemptLog, type BegunAttempt } from './attempt-log';
import type { AttemptStart } from './delivery.repository';
import { WebhookSender, type SendResult } from './webhook-sender';

/**
 * Makes one attempt: records it, then sends it, so a request never leaves without its row in
 * the delivery log (docs/reliability.md). The caller records the result with
 * {@link AttemptLog.finish}.
 */
@Injectable()
export class AttemptRunner {
  constructor(
    private readonly attempts: AttemptLog,
    private readonly sender: WebhookSender,
  ) {}

  /**
   * @param target where to send and the signing secrets to sign with.
   * @param body the exact JSON text to send.
   * @param closeOrphans see {@link AttemptLog.begin}.
   * @returns the attempt's id, how many abandoned attempts were closed first, and the result.
   */
  async run(
    start: Omit<AttemptStart, 'attemptedAt'>,
    target: { url: string; secrets: string[] },
    body: string,
    closeOrphans = false,
  ): Promise<BegunAttempt & { result: SendResult }> {
    const begun = await this.attempts.begin({ ...start, attemptedAt: new Date() }, closeOrphans);
    const result = await this.sender.send(target.url, target.secrets, {
      id: start.messageId,
      body,
    });
    return { ...begun, result };
  }
}
