import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { Campaign } from '../campaigns';
import type { SignatureScheme } from './signature-schemes.constants';
import type { StoredCustomHeader } from './custom-headers';

/**
 * Why an endpoint is disabled (docs/webhooks.md#disabled-endpoints): `manual` when an admin (the
 * dashboard) or an operator (the CLI) disabled it, `gone` when it answered an attempt with 410
 * Gone, `auto` reserved for a rule that disables an endpoint after days of failures.
 */
export const DISABLED_REASONS = ['manual', 'gone', 'auto'] as const;

/** One of {@link DISABLED_REASONS}. */
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/**
 * The order an endpoint's deliveries are attempted in (docs/webhooks.md#per-lead-ordering):
 * `none`, as they come; `per_lead`, each lead's deliveries one after another in the order their
 * events were recorded (commit order), other leads unaffected.
 */
export const ENDPOINT_ORDERINGS = ['none', 'per_lead'] as const;

/** One of {@link ENDPOINT_ORDERINGS}. */
export type EndpointOrdering = (typeof ENDPOINT_ORDERINGS)[number];

/**
 * Why an endpoint is failing (docs/webhooks.md#failing-endpoints): `failure_rate` when more
 * than half of at least 20 attempts in the last hour failed, `no_success` when every attempt
 * of the last 24 hours failed.
 */
export const FAILING_REASONS = ['failure_rate', 'no_success'] as const;

/** One of {@link FAILING_REASONS}. */
export type FailingReason = (typeof FAILING_REASONS)[number];

/**
 * A customer-configured webhook endpoint of a campaign (docs/api.md#webhook-reads, docs/webhooks.md).
 *
 * The signing secret is stored only encrypted (AES-256-GCM with `SECRETS_ENCRYPTION_KEY`).
 * After a rotation the previous secret stays valid until `previousSecretExpiresAt` (24 hours)
 * and deliveries carry both signatures. The health counters are updated in the same
 * statement that records each delivery attempt, so reading health is O(1). A disabled endpoint
 * records why and since when (`disabled_reason`, `disabled_at`); an enabled one has neither, and
 * keeps the last ones it had in `last_disabled_reason` and `last_disabled_at`.
 */
@Entity({ name: 'webhook_endpoint' })
@Check('chk_webhook_endpoint_disabled_reason', `"disabled_reason" IN ('manual', 'gone', 'auto')`)
@Check(
  'chk_webhook_endpoint_last_disabled_reason',
  `"last_disabled_reason" IN ('manual', 'gone', 'auto')`,
)
@Check('chk_webhook_endpoint_failing_reason', `"failing_reason" IN ('failure_rate', 'no_success')`)
@Check(
  'chk_webhook_endpoint_failing_state',
  `("failing_since" IS NULL) = ("failing_reason" IS NULL) AND ("failing_since" IS NULL OR "is_enabled")`,
)
@Check(
  'chk_webhook_endpoint_disabled_state',
  `("is_enabled" AND "disabled_reason" IS NULL AND "disabled_at" IS NULL) OR (NOT "is_enabled" AND "disabled_reason" IS NOT NULL AND "disabled_at" IS NOT NULL)`,
)
@Check(
  'chk_webhook_endpoint_probe_state',
  `"next_probe_at" IS NULL OR (NOT "is_enabled" AND "disabled_reason" = 'auto' AND "auto_recover" AND "probing_since" IS NOT NULL)`,
)
@Check(
  'chk_webhook_endpoint_signature_scheme',
  `"signature_scheme" IN ('symmetric', 'asymmetric') AND ("signature_scheme" = 'asymmetric') = ("public_key" IS NOT NULL)`,
)
@Check('chk_webhook_endpoint_ordering', `"ordering" IN ('none', 'per_lead')`)
export class WebhookEndpoint {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Index('idx_webhook_endpoint_campaign_id')
  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne('Campaign', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_webhook_endpoint_campaign' })
  campaign?: Campaign;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ name: 'subscribed_events', type: 'text', array: true })
  subscribedEvents!: string[];

  @Column({ name: 'is_enabled', type: 'boolean', default: true })
  isEnabled!: boolean;

  /** Why it is disabled ({@link DISABLED_REASONS}); null while enabled. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 16, nullable: true })
  disabledReason!: DisabledReason | null;

  /** When it was disabled; null while enabled. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /**
   * The `disabled_at` it had when it was last enabled again (enabling clears `disabled_at`): the
   * start of the disabled period that ended last, from which the dashboard offers to replay what
   * the endpoint missed (docs/webhooks.md#replaying-missed-deliveries). Null until it is enabled
   * again after having been disabled; kept while it is disabled again.
   */
  @Column({ name: 'last_disabled_at', type: 'timestamptz', nullable: true })
  lastDisabledAt!: Date | null;

  /** The `disabled_reason` it had when it was last enabled again; null with `lastDisabledAt`. */
  @Column({ name: 'last_disabled_reason', type: 'varchar', length: 16, nullable: true })
  lastDisabledReason!: DisabledReason | null;

  /**
   * Since when it is failing (docs/webhooks.md#failing-endpoints); null while it is not, and
   * always while disabled.
   */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /** Why it is failing ({@link FAILING_REASONS}); null while it is not. */
  @Column({ name: 'failing_reason', type: 'varchar', length: 16, nullable: true })
  failingReason!: FailingReason | null;

  /**
   * `v1:<iv>:<tag>:<ciphertext>` (base64) of the `whsec_…` secret, or of the `whsk_…` ed25519
   * secret key of an `asymmetric` endpoint.
   */
  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted!: string;

  @Column({ name: 'previous_secret_encrypted', type: 'text', nullable: true })
  previousSecretEncrypted!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Every delivery attempt ever recorded (first tries, retries, redeliveries and pings). */
  @Column({ name: 'total_deliveries', type: 'integer', default: 0 })
  totalDeliveries!: number;

  @Column({ name: 'successful_deliveries', type: 'integer', default: 0 })
  successfulDeliveries!: number;

  @Column({ name: 'failed_deliveries', type: 'integer', default: 0 })
  failedDeliveries!: number;

  /** Sum of the attempts' durations in ms; avg = total_duration_ms / total_deliveries. */
  @Column({ name: 'total_duration_ms', type: 'double precision', default: 0 })
  totalDurationMs!: number;

  @Column({ name: 'last_delivery_at', type: 'timestamptz', nullable: true })
  lastDeliveryAt!: Date | null;

  @Column({ name: 'last_delivery_is_successful', type: 'boolean', nullable: true })
  lastDeliveryIsSuccessful!: boolean | null;

  /**
   * How deliveries are signed (docs/webhooks.md#signing): `symmetric` (`secret_encrypted`
   * holds a `whsec_` secret, `v1,` signatures) or `asymmetric` (it holds a `whsk_` ed25519
   * secret key, `v1a,` signatures). The previous key, during its overlap, may be of the other
   * scheme: its plaintext's prefix tells.
   */
  @Column({ name: 'signature_scheme', type: 'varchar', length: 16, default: 'symmetric' })
  signatureScheme!: SignatureScheme;

  /** Its deliveries' order ({@link ENDPOINT_ORDERINGS}), `none` unless set. */
  @Column({ type: 'varchar', length: 16, default: 'none' })
  ordering!: EndpointOrdering;

  /** `whpk_…` of the current key while the scheme is `asymmetric`; null while `symmetric`. */
  @Column({ name: 'public_key', type: 'text', nullable: true })
  publicKey!: string | null;

  /**
   * `whpk_…` of the previous key when it is an ed25519 key (until `previous_secret_expires_at`);
   * null when the previous key is a `whsec_` secret or there is none.
   */
  @Column({ name: 'previous_public_key', type: 'text', nullable: true })
  previousPublicKey!: string | null;

  /**
   * Headers added to every request to the endpoint, in order (docs/webhooks.md#custom-headers):
   * a secret one's value only encrypted like the signing secret, with its mask.
   */
  @Column({ name: 'custom_headers', type: 'jsonb', default: () => "'[]'" })
  customHeaders!: StoredCustomHeader[];

  /**
   * Most deliveries per second the worker sends to it, across every worker process
   * (docs/webhooks.md#throttling), 1 to 1,000; null: unlimited.
   */
  @Column({ name: 'max_deliveries_per_second', type: 'integer', nullable: true })
  maxDeliveriesPerSecond!: number | null;

  /** Most attempts to it in flight at once, across every worker process, 1 to 100; null: unlimited. */
  @Column({ name: 'max_in_flight', type: 'integer', nullable: true })
  maxInFlight!: number | null;

  /**
   * Whether the endpoint comes back by itself (docs/webhooks.md#endpoints-that-come-back-by-themselves):
   * once disabled `auto`, it is probed with a signed ping on a back-off, and enabled again on a
   * 2xx. Off by default.
   */
  @Column({ name: 'auto_recover', type: 'boolean', default: false })
  autoRecover!: boolean;

  /**
   * Since when it is probed (the probing window starts then); null when it is not (not
   * disabled `auto`, not opted in, or enabled again).
   */
  @Column({ name: 'probing_since', type: 'timestamptz', nullable: true })
  probingSince!: Date | null;

  /**
   * When the next probe is due; null when none is (not probed, or given up). A worker claims a
   * due probe by moving it on by a lease, so two never probe at once.
   */
  @Index('idx_webhook_endpoint_next_probe_at', { where: '"next_probe_at" IS NOT NULL' })
  @Column({ name: 'next_probe_at', type: 'timestamptz', nullable: true })
  nextProbeAt!: Date | null;

  /** Probes sent since `probing_since`. */
  @Column({ name: 'probe_count', type: 'integer', default: 0 })
  probeCount!: number;

  /** When the last probe was sent; null before the first. */
  @Column({ name: 'last_probe_at', type: 'timestamptz', nullable: true })
  lastProbeAt!: Date | null;

  /** When probing stopped for good, its window over without a success; null otherwise. */
  @Column({ name: 'probe_gave_up_at', type: 'timestamptz', nullable: true })
  probeGaveUpAt!: Date | null;

  /**
   * Its payload filter (docs/webhooks.md#payload-filters): a CEL expression over the event,
   * checked on save against each subscribed type's schema; an event it does not match gets no
   * delivery to this endpoint. Null: every event of the subscribed types.
   */
  @Column({ type: 'text', nullable: true })
  filter!: string | null;

  /**
   * The transformation in force (docs/webhooks.md#transformations): JavaScript defining
   * `handler(webhook)`, a copy of version {@link transformationVersion} of
   * `webhook_transformation_version`, read with the endpoint by each attempt. Null: requests are
   * sent as the event is.
   */
  @Column({ type: 'text', nullable: true })
  transformation!: string | null;

  /** The version of {@link transformation} (1, 2, …); null when the endpoint has none in force. */
  @Column({ name: 'transformation_version', type: 'integer', nullable: true })
  transformationVersion!: number | null;
}
