/**
 * @campaign-api/client: a typed client of Campaign API's public HTTP API, the webhook payload
 * types with their verifier, and the CSV importer behind `campaign-api-import` (docs/client.md).
 */
export {
  apiKeyFingerprint,
  CampaignApiClient,
  MAX_REDIRECTS,
  type CampaignApiClientOptions,
  type LeadInput,
  type LeadUploadError,
  type LeadUploadRequest,
  type LeadUploadResponse,
  type LeadUploadResult,
  type RetryEvent,
  type UploadOptions,
  type WebhookEndpoint,
  type WebhookEndpointHealth,
} from './client';
export {
  CampaignApiError,
  CampaignApiNetworkError,
  CampaignApiRedirectError,
  type ApiErrorCode,
} from './errors';
export type { RetryOptions } from './retry';
export {
  verifyWebhook,
  WebhookVerificationError,
  type CallCompletedEvent,
  type CallStartedEvent,
  type FormSubmittedEvent,
  type LeadConvertedEvent,
  type LeadCreatedEvent,
  type LeadsBulkCreatedEvent,
  type LeadStatusChangedEvent,
  type PingEvent,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookVerificationErrorCode,
} from './webhooks';
export type { components, paths } from './generated/schema';
