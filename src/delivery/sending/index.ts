/** The face of `src/delivery/sending/`: the signed sender and what its callers need of it. */
export { DeliverySendingModule } from './delivery-sending.module';
export {
  WebhookSender,
  loggedHeaders,
  WEBHOOK_USER_AGENT,
  type RequestMethod,
  type SendResult,
  type SignedRequest,
  type WebhookMessage,
} from './webhook.sender';
export {
  redactSecretHeaders,
  withCustomHeaders,
  REDACTED_HEADER_VALUE,
} from './custom-request-headers';
export {
  transformationErrorText,
  TRANSFORMATION_ERROR,
  type ShapedRequest,
} from './request-shaper';
