import { AppConfig } from '../config/app-config';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLog, type AuditActor, type AuditChange } from '../audit';
import { InvalidInputError, NotFoundError, StateConflictError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import type { Owned } from '../common/owned-id';
import { CampaignNotFoundError, CampaignsService } from '../campaigns';
import { generateSigningKeyPair } from './signing-keys';
import {
  validateDescription,
  validateEvents,
  validateSignatureScheme,
  validateOrdering,
  validateThrottleLimit,
  validateUrl,
} from './endpoint-input';
import type { SignatureScheme } from './signature-schemes.constants';
import {
  auditedCustomHeaders,
  customHeaderViews,
  sealCustomHeaders,
  validateCustomHeaders,
  type CheckedCustomHeader,
  type CustomHeaderInput,
  type CustomHeaderView,
} from './custom-headers';
import { generateSigningSecret, SigningSecretBox } from './signing-secrets.service';
import type { EndpointOrdering, WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { validateFilter } from './payload-filter';
import {
  recoveryProbeView,
  toEndpointDetail,
  toEndpointView,
  type RecoveryProbeView,
  type WebhookEndpointDetail,
  type WebhookEndpointView,
} from './webhook-endpoint.views';

/** How long the previous signing secret stays valid after a rotation (docs/operations.md). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * What a new key of an endpoint shows (docs/webhooks.md#signing): for `symmetric` the
 * `whsec_` secret (shown this once) and no public key; for `asymmetric` no secret (its `whsk_`
 * secret key is never shown) and the `whpk_` public key.
 */
export interface NewSigningKey {
  signature_scheme: SignatureScheme;
  secret: string | null;
  public_key: string | null;
}

/** Fields an operator may set on an endpoint (docs/cli.md); `undefined` leaves one as is. */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  /** `null` or blank clears it. */
  description?: string | null;
  enabled?: boolean;
  /**
   * The endpoint's custom headers, replacing the list (docs/webhooks.md#custom-headers): `[]`
   * removes them all; a secret header without a value keeps its stored value.
   */
  headers?: CustomHeaderInput[];
  /** Most deliveries per second (docs/webhooks.md#throttling), 1 to 1,000; `null` removes it. */
  maxDeliveriesPerSecond?: number | null;
  /** Most attempts in flight at once, 1 to 100; `null` removes it. */
  maxInFlight?: number | null;
  /** `none` or `per_lead` (docs/webhooks.md#per-lead-ordering). */
  ordering?: string;
  /**
   * Whether it comes back by itself once disabled `auto`
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves).
   */
  autoRecover?: boolean;
  /**
   * Its payload filter (docs/webhooks.md#payload-filters), a CEL expression checked against
   * the subscribed types' schemas; `null` or blank removes it.
   */
  filter?: string | null;
}

/**
 * An endpoint as the CLI and the dashboard's changes answer it: with its signature scheme, its
 * throttle's limits (null: no limit; docs/webhooks.md#throttling) and its custom headers.
 */
export type EndpointWithHeaders = WebhookEndpointView & {
  signature_scheme: SignatureScheme;
  ordering: EndpointOrdering;
  max_deliveries_per_second: number | null;
  max_in_flight: number | null;
  custom_headers: CustomHeaderView[];
  /** Whether it comes back by itself (docs/webhooks.md#endpoints-that-come-back-by-themselves). */
  auto_recover: boolean;
  /** Its recovery probing while it is probed or has given up; null otherwise. */
  recovery_probe: RecoveryProbeView | null;
  /** Its payload filter (docs/webhooks.md#payload-filters); null: every event of its types. */
  filter: string | null;
};

/**
 * Managing webhook endpoints (docs/cli.md#commands): what the operator CLI and the dashboard
 * do. Each change is recorded in the audit log under the `AuditActor` the edge passes, in the
 * change's transaction (docs/architecture.md#who-writes-the-audit-log); without an actor (a
 * test's or a script's setup) nothing is recorded. Input errors name the field
 * (`InvalidInputError`); unknown endpoints and campaigns are `NotFoundError`s.
 */
@Injectable()
export class WebhookEndpointAdmin {
  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly campaigns: CampaignsService,
    private readonly secretBox: SigningSecretBox,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * The campaign's endpoints ordered by id, without secrets.
   * @throws CampaignNotFoundError when the campaign does not exist.
   */
  async list(campaignId: number): Promise<EndpointWithHeaders[]> {
    if (!(await this.campaigns.exists(campaignId))) throw new CampaignNotFoundError(campaignId);
    return (await this.repository.listOfCampaign(campaignId)).map((e) =>
      withHeaders(toEndpointView(e), e, []),
    );
  }

  /**
   * Creates an endpoint with a new signing key of its `signatureScheme` (`symmetric` when not
   * given: a `whsec_` secret; `asymmetric`: an ed25519 key pair, docs/webhooks.md#signing) and
   * its custom headers; created disabled, it is disabled `manual`. Recorded as `endpoint.create`
   * (campaign, URL, events, description, enabled, the scheme when asymmetric, the custom
   * headers' names, the payload filter when it has one; never a secret) in the same transaction.
   * @returns the endpoint with its custom headers (secret values in clear this once) and its new
   *   key: for `symmetric` the plaintext secret, which is never available again; for
   *   `asymmetric` no secret and the public key.
   * @throws InvalidInputError for a bad URL, event type, description, scheme, custom header or
   *   payload filter (its message names the line and column); CampaignNotFoundError for an
   *   unknown campaign.
   */
  async create(
    campaignId: number,
    fields: {
      url: string;
      events: string[];
      description?: string | null;
      enabled?: boolean;
      signatureScheme?: string;
      headers?: CustomHeaderInput[];
      maxDeliveriesPerSecond?: number | null;
      maxInFlight?: number | null;
      ordering?: string;
      autoRecover?: boolean;
      filter?: string | null;
    },
    actor?: AuditActor,
  ): Promise<NewSigningKey & { endpoint: EndpointWithHeaders }> {
    const url = validateUrl(fields.url);
    const subscribedEvents = validateEvents(fields.events);
    const filter = validateFilter(fields.filter, subscribedEvents);
    const description = validateDescription(fields.description ?? null);
    const key = this.newKey(validateSignatureScheme(fields.signatureScheme));
    const headers = validateCustomHeaders(fields.headers ?? []);
    const entity = this.repository.build({
      campaignId,
      url,
      subscribedEvents,
      description,
      ...enabledState(fields.enabled ?? true),
      secretEncrypted: key.secretEncrypted,
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
      signatureScheme: key.shown.signature_scheme,
      publicKey: key.shown.public_key,
      previousPublicKey: null,
      customHeaders: sealCustomHeaders(headers, [], (value) => this.secretBox.encrypt(value)),
      maxDeliveriesPerSecond: validateThrottleLimit(
        'max_deliveries_per_second',
        fields.maxDeliveriesPerSecond ?? null,
      ),
      maxInFlight: validateThrottleLimit('max_in_flight', fields.maxInFlight ?? null),
      ordering: validateOrdering(fields.ordering),
      autoRecover: validateAutoRecover(fields.autoRecover ?? false),
      filter,
    });
    if (campaignId > MAX_INT4) throw new CampaignNotFoundError(campaignId);
    const accountId = await this.accountOf(actor, campaignId);
    try {
      const endpoint = await this.dataSource.transaction(async (manager) => {
        const saved = toEndpointView(await this.repository.save(entity, manager));
        await this.record(manager, actor, accountId, 'endpoint.create', saved.id, {
          campaign_id: saved.campaign_id,
          url: saved.url,
          events: saved.subscribed_events,
          description: saved.description,
          enabled: saved.is_enabled,
          ...(key.shown.public_key === null ? {} : { signature_scheme: 'asymmetric' }),
          ...(headers.length > 0 ? { headers: auditedCustomHeaders(headers) } : {}),
          ...throttleDetails(entity),
          ...(entity.ordering === 'none' ? {} : { ordering: entity.ordering }),
          ...(entity.autoRecover ? { auto_recover: true } : {}),
          ...(filter === null ? {} : { filter }),
        });
        return saved;
      });
      return { endpoint: withHeaders(endpoint, entity, headers), ...key.shown };
    } catch (error) {
      if ((error as { code?: string }).code === '23503')
        throw new CampaignNotFoundError(campaignId);
      throw error;
    }
  }

  /**
   * Changes an endpoint. Disabling an enabled one records the reason `manual` and the time;
   * enabling a disabled one clears both, whatever the reason was (docs/webhooks.md#disabled-endpoints),
   * and keeps them as `last_disabled_reason` and `last_disabled_at`: the period whose missed
   * deliveries the dashboard offers to replay (docs/webhooks.md#replaying-missed-deliveries).
   * Disabling one already disabled keeps its reason and time, and its recovery probing (the
   * dashboard's form sends `enabled` with every save). Either change by hand ends probing;
   * `autoRecover` on starts it for an endpoint disabled `auto` (the first probe
   * `WEBHOOK_RECOVERY_PROBE_FIRST` from now), off ends it
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves). Recorded as `endpoint.update`
   * with `{changes}`: each field given, as saved; for custom headers their names, plain
   * values and whether each secret value changed, never a secret value; a change of the payload
   * filter also records the previous one (`previous_filter`). A filter is checked again when
   * the subscribed types change (it must still check against one of them).
   * @returns the endpoint with its custom headers, the secret values this change set in clear.
   * @throws NotFoundError for an unknown endpoint; InvalidInputError for a bad value.
   */
  async update(
    id: number,
    changes: EndpointChanges,
    actor?: AuditActor,
  ): Promise<EndpointWithHeaders> {
    const endpoint = await this.require(id);
    let headers: CheckedCustomHeader[] = [];
    if (changes.headers !== undefined) {
      const stored = endpoint.customHeaders ?? [];
      headers = validateCustomHeaders(changes.headers, stored);
      endpoint.customHeaders = sealCustomHeaders(headers, stored, (value) =>
        this.secretBox.encrypt(value),
      );
    }
    if (changes.url !== undefined) endpoint.url = validateUrl(changes.url);
    if (changes.events !== undefined) endpoint.subscribedEvents = validateEvents(changes.events);
    const previousFilter = endpoint.filter;
    if (changes.filter !== undefined || changes.events !== undefined)
      endpoint.filter = validateFilter(
        changes.filter === undefined ? endpoint.filter : changes.filter,
        endpoint.subscribedEvents,
      );
    if (changes.description !== undefined)
      endpoint.description = validateDescription(changes.description);
    if (changes.enabled !== undefined && changes.enabled !== endpoint.isEnabled) {
      if (changes.enabled) {
        endpoint.lastDisabledAt = endpoint.disabledAt;
        endpoint.lastDisabledReason = endpoint.disabledReason;
      }
      Object.assign(endpoint, enabledState(changes.enabled));
    }
    if (changes.autoRecover !== undefined) {
      const autoRecover = validateAutoRecover(changes.autoRecover);
      if (autoRecover !== endpoint.autoRecover) {
        endpoint.autoRecover = autoRecover;
        const probed = autoRecover && !endpoint.isEnabled && endpoint.disabledReason === 'auto';
        Object.assign(
          endpoint,
          probed ? startProbing(this.config.webhookRecoveryProbe.firstMs) : notProbed(),
        );
      }
    }
    if (changes.maxDeliveriesPerSecond !== undefined)
      endpoint.maxDeliveriesPerSecond = validateThrottleLimit(
        'max_deliveries_per_second',
        changes.maxDeliveriesPerSecond,
      );
    if (changes.maxInFlight !== undefined)
      endpoint.maxInFlight = validateThrottleLimit('max_in_flight', changes.maxInFlight);
    if (changes.ordering !== undefined) endpoint.ordering = validateOrdering(changes.ordering);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    return this.dataSource.transaction(async (manager) => {
      const saved = toEndpointView(await this.repository.save(endpoint, manager));
      const changed: Record<string, unknown> = {};
      if (changes.url !== undefined) changed.url = saved.url;
      if (changes.events !== undefined) changed.events = saved.subscribed_events;
      if (changes.description !== undefined) changed.description = saved.description;
      if (changes.enabled !== undefined) changed.enabled = saved.is_enabled;
      if (changes.headers !== undefined) changed.headers = auditedCustomHeaders(headers);
      if (changes.maxDeliveriesPerSecond !== undefined)
        changed.max_deliveries_per_second = endpoint.maxDeliveriesPerSecond;
      if (changes.maxInFlight !== undefined) changed.max_in_flight = endpoint.maxInFlight;
      if (changes.ordering !== undefined) changed.ordering = endpoint.ordering;
      if (changes.autoRecover !== undefined) changed.auto_recover = endpoint.autoRecover;
      if (changes.filter !== undefined) changed.filter = endpoint.filter;
      await this.record(manager, actor, accountId, 'endpoint.update', id, {
        changes: changed,
        ...(changes.filter !== undefined && previousFilter !== endpoint.filter
          ? { previous_filter: previousFilter }
          : {}),
      });
      return withHeaders(saved, endpoint, headers);
    });
  }

  /**
   * Deletes an endpoint with its deliveries and attempts, recorded as `endpoint.delete` in the
   * same transaction: `{campaign_id, url}` for a dashboard user, `{campaign_id}` for the CLI.
   * @throws NotFoundError for an unknown endpoint.
   */
  async delete(id: number, actor?: AuditActor): Promise<{ id: number; deleted: true }> {
    const endpoint = await this.require(id);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.repository.deleteById(id, manager))) throw endpointNotFound(id);
      await this.record(
        manager,
        actor,
        accountId,
        'endpoint.delete',
        id,
        actor?.type === 'user'
          ? { campaign_id: endpoint.campaignId, url: endpoint.url }
          : { campaign_id: endpoint.campaignId },
      );
    });
    return { id, deleted: true };
  }

  /**
   * Replaces the signing key with a new one of the same scheme (docs/webhooks.md#rotating-keys):
   * a `whsec_` secret, or an ed25519 key pair for an `asymmetric` endpoint. The old key stays
   * valid for 24 hours, during which every delivery carries both signatures
   * (docs/operations.md). Recorded as `secret.rotate` in the same transaction (for a dashboard
   * user with `previous_secret_expires_at`; for an asymmetric endpoint also its scheme and new
   * public key; never a secret).
   * @returns the new plaintext secret (shown once; null for `asymmetric`), the new public key
   *   (null for `symmetric`) and until when the previous key is valid.
   * @throws NotFoundError for an unknown endpoint.
   */
  async rotateSecret(
    id: number,
    actor?: AuditActor,
  ): Promise<NewSigningKey & { id: number; previous_secret_expires_at: Date }> {
    const endpoint = await this.require(id);
    const key = this.newKey(endpoint.signatureScheme);
    const expiresAt = replaceKey(endpoint, key);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    const asymmetric =
      key.shown.public_key === null
        ? {}
        : { signature_scheme: 'asymmetric', public_key: key.shown.public_key };
    await this.dataSource.transaction(async (manager) => {
      await this.repository.save(endpoint, manager);
      await this.record(
        manager,
        actor,
        accountId,
        'secret.rotate',
        id,
        actor?.type === 'user'
          ? { previous_secret_expires_at: expiresAt.toISOString(), ...asymmetric }
          : key.shown.public_key === null
            ? undefined
            : asymmetric,
      );
    });
    return { id, ...key.shown, previous_secret_expires_at: expiresAt };
  }

  /**
   * Switches the endpoint to another signature scheme (docs/webhooks.md#changing-the-signature-scheme):
   * like a rotation, a new key of the new scheme signs from now on, and the old key (of the old
   * scheme) keeps signing for 24 hours, so every delivery carries both a `v1,` and a `v1a,`
   * signature until then and a receiver can switch without losing a delivery. Recorded as
   * `secret.change_scheme` (`{signature_scheme, previous_signature_scheme,
   * previous_secret_expires_at}`, with the new public key for `asymmetric`; never a secret) in
   * the same transaction.
   * @returns the new key as {@link rotateSecret} does.
   * @throws NotFoundError for an unknown endpoint; InvalidInputError for an unknown scheme;
   *   StateConflictError when the endpoint already uses that scheme (rotate instead).
   */
  async changeSignatureScheme(
    id: number,
    scheme: string,
    actor?: AuditActor,
  ): Promise<NewSigningKey & { id: number; previous_secret_expires_at: Date }> {
    const wanted = validateSignatureScheme(scheme);
    const endpoint = await this.require(id);
    const previousScheme = endpoint.signatureScheme;
    if (previousScheme === wanted) {
      throw new StateConflictError(
        `webhook endpoint ${id} already uses the ${wanted} signature scheme: rotate its key instead`,
      );
    }
    const key = this.newKey(wanted);
    const expiresAt = replaceKey(endpoint, key);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    await this.dataSource.transaction(async (manager) => {
      await this.repository.save(endpoint, manager);
      await this.record(manager, actor, accountId, 'secret.change_scheme', id, {
        signature_scheme: wanted,
        previous_signature_scheme: previousScheme,
        previous_secret_expires_at: expiresAt.toISOString(),
        ...(key.shown.public_key === null ? {} : { public_key: key.shown.public_key }),
      });
    });
    return { id, ...key.shown, previous_secret_expires_at: expiresAt };
  }

  /**
   * The campaign's endpoints with their health (the dashboard). The campaign is owned: the
   * dashboard's resource guard checked its account (docs/architecture.md#account-access).
   * @throws CampaignNotFoundError when the campaign no longer exists.
   */
  async listOfCampaign(campaignId: Owned<'campaign'>): Promise<WebhookEndpointDetail[]> {
    if (!(await this.campaigns.exists(campaignId))) throw new CampaignNotFoundError(campaignId);
    const now = new Date();
    return (await this.repository.listOfCampaign(campaignId)).map((e) =>
      toEndpointDetail(e, now, this.config.webhookDisableAfterMs),
    );
  }

  /** How many endpoints each campaign has, for campaign listings (0 when none). */
  async countByCampaign(campaignIds: number[]): Promise<Map<number, number>> {
    const counts = await this.repository.countByCampaign(campaignIds);
    return new Map(campaignIds.map((id) => [id, counts.get(id) ?? 0]));
  }

  /**
   * Endpoint `id` with its health (the dashboard). The id is owned: the dashboard's resource
   * guard checked its account (docs/architecture.md#account-access).
   * @throws NotFoundError when it no longer exists.
   */
  async detail(id: Owned<'endpoint'>): Promise<WebhookEndpointDetail> {
    return toEndpointDetail(await this.require(id), new Date(), this.config.webhookDisableAfterMs);
  }

  /**
   * The current signing secret in clear, for an admin who asked to see it again. Recorded as
   * `secret.reveal` first: when the entry cannot be written, the secret is not returned. The id
   * is owned (docs/architecture.md#account-access): the dashboard's guard checked its account.
   * @throws NotFoundError for an unknown endpoint; the database's error when the entry
   *   cannot be written.
   */
  async revealSecret(
    id: Owned<'endpoint'>,
    actor: AuditActor,
  ): Promise<{ id: number; secret: string }> {
    const endpoint = await this.require(id);
    if (endpoint.signatureScheme === 'asymmetric') {
      throw new StateConflictError(
        `webhook endpoint ${id} signs with an ed25519 key, whose secret key is never shown: receivers verify with its public key`,
      );
    }
    const secret = this.secretBox.decrypt(endpoint.secretEncrypted);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    await this.record(undefined, actor, accountId, 'secret.reveal', id);
    return { id, secret };
  }

  /**
   * The value of the endpoint's secret custom header `name` (any case) in clear, for an admin
   * who asked to see it again (docs/webhooks.md#custom-headers); the id is owned
   * (docs/architecture.md#account-access). Read and recorded as
   * `header.reveal` (`{name}`) in one transaction: when the entry cannot be written, the value
   * is not returned.
   * @throws NotFoundError for an unknown endpoint, or when it has no secret header `name`;
   *   the database's error when the entry cannot be written.
   */
  async revealHeader(
    id: Owned<'endpoint'>,
    name: string,
    actor: AuditActor,
  ): Promise<{ id: number; name: string; value: string }> {
    const endpoint = await this.require(id);
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    return this.dataSource.transaction(async (manager) => {
      const headers = await this.repository.customHeadersOf(manager, id);
      if (headers === null) throw endpointNotFound(id);
      const header = headers.find(
        (h) => h.secret && h.name.toLowerCase() === name.trim().toLowerCase(),
      );
      if (!header?.secret) {
        throw new NotFoundError(
          `webhook endpoint ${id} has no secret header ${JSON.stringify(name)}`,
        );
      }
      await this.record(manager, actor, accountId, 'header.reveal', id, { name: header.name });
      return { id, name: header.name, value: this.secretBox.decrypt(header.encrypted) };
    });
  }

  /**
   * The campaign and account of endpoint `id` (a CLI audit entry belongs to that account).
   * @returns null when no endpoint has that id.
   */
  async ownerOf(id: number): Promise<{ campaignId: number; accountId: number } | null> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findById(id);
    const accountId = endpoint ? await this.campaigns.accountOf(endpoint.campaignId) : null;
    return endpoint && accountId !== null ? { campaignId: endpoint.campaignId, accountId } : null;
  }

  /**
   * The account an audit entry by `actor` about endpoint `id` belongs to: the user's, or for
   * the CLI the endpoint's (null when it does not exist).
   */
  async accountForEntry(actor: AuditActor | undefined, id: number): Promise<number | null> {
    if (!actor) return null;
    return actor.type === 'user' ? actor.accountId : ((await this.ownerOf(id))?.accountId ?? null);
  }

  /** The account an entry of `actor` about campaign `campaignId`'s endpoint belongs to. */
  private async accountOf(
    actor: AuditActor | undefined,
    campaignId: number,
  ): Promise<number | null> {
    if (!actor) return null;
    return actor.type === 'user' ? actor.accountId : this.campaigns.accountOf(campaignId);
  }

  /**
   * Records `action` on endpoint `id` by `actor`, in `manager`'s transaction when given;
   * nothing without an actor.
   */
  private async record(
    manager: EntityManager | undefined,
    actor: AuditActor | undefined,
    accountId: number | null,
    action: AuditChange['action'],
    id: number,
    details?: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.recordChange(
      actor,
      { accountId, action, objectType: 'endpoint', objectId: id, details },
      manager,
    );
  }

  /**
   * A new key of `scheme`: its plaintext encrypted for storage, and what may be shown of it.
   * The `whsk_` secret key of an ed25519 pair leaves this method only encrypted.
   */
  private newKey(scheme: SignatureScheme): StoredKey {
    if (scheme === 'asymmetric') {
      const pair = generateSigningKeyPair();
      return {
        secretEncrypted: this.secretBox.encrypt(pair.secretKey),
        shown: { signature_scheme: scheme, secret: null, public_key: pair.publicKey },
      };
    }
    const secret = generateSigningSecret();
    return {
      secretEncrypted: this.secretBox.encrypt(secret),
      shown: { signature_scheme: scheme, secret, public_key: null },
    };
  }

  private async require(id: number): Promise<WebhookEndpoint> {
    const endpoint = id > MAX_INT4 ? null : await this.repository.findById(id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }
}

/** A new signing key: what is stored (encrypted) and what may be shown. */
interface StoredKey {
  secretEncrypted: string;
  shown: NewSigningKey;
}

/**
 * Makes `key` the endpoint's current key and its current key the previous one, valid for
 * {@link SECRET_ROTATION_OVERLAP_MS} from now (docs/webhooks.md#rotating-keys).
 * @returns until when the previous key is valid.
 */
function replaceKey(endpoint: WebhookEndpoint, key: StoredKey): Date {
  const expiresAt = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
  endpoint.previousSecretEncrypted = endpoint.secretEncrypted;
  endpoint.previousPublicKey = endpoint.publicKey;
  endpoint.previousSecretExpiresAt = expiresAt;
  endpoint.secretEncrypted = key.secretEncrypted;
  endpoint.signatureScheme = key.shown.signature_scheme;
  endpoint.publicKey = key.shown.public_key;
  return expiresAt;
}

/**
 * The state columns of an endpoint an admin or operator enables or disables now: enabled
 * without a reason, or disabled `manual` as of now.
 */
function enabledState(
  enabled: boolean,
): Pick<
  WebhookEndpoint,
  'isEnabled' | 'disabledReason' | 'disabledAt' | 'failingSince' | 'failingReason'
> &
  ReturnType<typeof notProbed> {
  // Either way it starts afresh: not failing (docs/webhooks.md#failing-endpoints), not probed
  // (docs/webhooks.md#endpoints-that-come-back-by-themselves).
  const notFailing = { failingSince: null, failingReason: null, ...notProbed() };
  return enabled
    ? { isEnabled: true, disabledReason: null, disabledAt: null, ...notFailing }
    : { isEnabled: false, disabledReason: 'manual', disabledAt: new Date(), ...notFailing };
}

/** The probing state of an endpoint that is not probed, or no longer. */
function notProbed(): Pick<
  WebhookEndpoint,
  'probingSince' | 'nextProbeAt' | 'probeCount' | 'lastProbeAt' | 'probeGaveUpAt'
> {
  return {
    probingSince: null,
    nextProbeAt: null,
    probeCount: 0,
    lastProbeAt: null,
    probeGaveUpAt: null,
  };
}

/**
 * The probing state of an endpoint disabled `auto` that opts in now: probing starts now, the
 * first probe `firstMs` later (docs/webhooks.md#endpoints-that-come-back-by-themselves).
 */
function startProbing(firstMs: number): ReturnType<typeof notProbed> {
  const now = Date.now();
  return { ...notProbed(), probingSince: new Date(now), nextProbeAt: new Date(now + firstMs) };
}

/**
 * `auto_recover` as given.
 * @throws InvalidInputError (field `auto_recover`) for anything but a boolean.
 */
function validateAutoRecover(value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw InvalidInputError.field('auto_recover', 'must be a boolean');
  return value;
}

/**
 * `view` with the endpoint's signature scheme, throttle limits and custom headers, masked except the secret values `checked` (the
 * change just made) set.
 */
function withHeaders(
  view: WebhookEndpointView,
  endpoint: WebhookEndpoint,
  checked: readonly CheckedCustomHeader[],
): EndpointWithHeaders {
  const revealed = new Map(
    checked.flatMap((h) => (h.secret && h.value !== null ? [[h.name, h.value] as const] : [])),
  );
  return {
    ...view,
    signature_scheme: endpoint.signatureScheme,
    ordering: endpoint.ordering,
    max_deliveries_per_second: endpoint.maxDeliveriesPerSecond,
    max_in_flight: endpoint.maxInFlight,
    custom_headers: customHeaderViews(endpoint.customHeaders ?? [], revealed),
    auto_recover: endpoint.autoRecover ?? false,
    recovery_probe: recoveryProbeView(endpoint),
    filter: endpoint.filter ?? null,
  };
}

function endpointNotFound(id: number): NotFoundError {
  return new NotFoundError(`webhook endpoint ${id} does not exist`);
}

/** An endpoint's throttle as its audit entries record it, only the limits it has (docs/webhooks.md#throttling). */
function throttleDetails(endpoint: WebhookEndpoint): Record<string, number> {
  return {
    ...(endpoint.maxDeliveriesPerSecond === null
      ? {}
      : { max_deliveries_per_second: endpoint.maxDeliveriesPerSecond }),
    ...(endpoint.maxInFlight === null ? {} : { max_in_flight: endpoint.maxInFlight }),
  };
}
