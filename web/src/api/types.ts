import type { components, paths } from './schema';

/** Shapes of the dashboard API's campaign, endpoint and delivery-log routes, from its OpenAPI document. */
type Schemas = components['schemas'];

export type Campaign = Schemas['DashboardCampaign'];
export type EndpointHealth = Schemas['DashboardEndpointHealth'];
export type Endpoint = Schemas['DashboardEndpoint'];
/** What the create form sends (the edit form sends the same fields). */
export type EndpointInput = Schemas['CreateEndpointRequest'];
/** `POST /campaigns/{id}/endpoints`: the endpoint and its signing secret, shown once. */
export type CreatedEndpoint = Schemas['CreatedEndpoint'];
export type EventType = Schemas['EventType'];
export type Attempt = Schemas['DeliveryAttempt'];
/** A test event's or a redelivery's attempt, with the start of the response. */
export type AttemptResult = Schemas['DeliveryAttemptResult'];
export type AttemptDetail = Schemas['DeliveryAttemptDetail'];
export type AttemptPage = Schemas['DeliveryLogPage'];
export type RotatedSecret = Schemas['RotatedSecret'];
/** How an endpoint's deliveries are signed: `symmetric` (HMAC `v1`) or `asymmetric` (ed25519 `v1a`). */
export type SignatureScheme = Schemas['ChangeSignatureSchemeRequest']['signature_scheme'];
/** The order an endpoint's deliveries go in: `none` (as they come) or `per_lead`. */
export type EndpointOrdering = Schemas['DashboardEndpoint']['ordering'];
/** An endpoint's custom header as read: a secret one's value masked. */
export type CustomHeader = Schemas['CustomHeader'];
/** A custom header as the endpoint form sends it. */
export type CustomHeaderInput = Schemas['CustomHeaderInput'];
export type RevealedHeader = Schemas['RevealedHeader'];
/** An endpoint's deliveries per UTC day by where they stand, today first. */
export type DeliveryLedger = Schemas['DeliveryLedger'];
export type LedgerDay = Schemas['DeliveryLedgerDay'];
export type TestEventInput = Schemas['TestEventRequest'];
/** The delivery log's query parameters. */
export type LogQuery = NonNullable<
  paths['/dashboard/api/endpoints/{endpoint_id}/attempts']['get']['parameters']['query']
>;
/** A lead as the search lists it. */
export type LeadSummary = Schemas['LeadSummary'];
export type LeadSearchPage = Schemas['LeadSearchPage'];
/** One lead with its campaign's name and its import's compliance record. */
export type LeadDetail = Schemas['LeadDetail'];
/** A delivery about a lead, with its attempts newest first. */
export type LeadDelivery = Schemas['LeadDelivery'];
export type LeadDeliveryAttempt = Schemas['LeadDeliveryAttempt'];
export type LeadDeliveryPage = Schemas['LeadDeliveryPage'];
/** What a search's text is: guessed by the service when empty. */
export type LeadSearchField = '' | 'phone' | 'email' | 'name';
/** A payload filter's "Try it": what it made of each example and recent event. */
export type FilterPreview = Schemas['FilterPreview'];
export type FilterPreviewItem = Schemas['FilterPreviewItem'];
export type FilterPreviewRequest = Schemas['FilterPreviewRequest'];
