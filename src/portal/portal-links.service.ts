import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import { CampaignNotFoundError, CampaignsService } from '../campaigns';
import { Clock } from '../common/clock';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import type { DashboardRole } from '../users';
import { PortalLinksRepository, type PortalLinkRow } from './portal-links.repository';
import { checkedMintRequest, type PortalPage, type PortalTheme } from './portal-request';
import {
  generateLinkSecret,
  generatePortalSessionToken,
  hashPortalSecret,
  isLinkSecretShaped,
  isPortalLinkId,
  isPortalSessionTokenShaped,
} from './portal-tokens';

/** Who mints a link: the account, the campaigns its key may use, and the key's prefix. */
export interface PortalMinter {
  accountId: number;
  /** The minting key's campaigns; null: every campaign of the account (and for the CLI). */
  campaignIds: number[] | null;
  /** The minting key's prefix; null for the CLI. */
  keyPrefix: string | null;
}

/** A link just minted: its secret is answered this once, inside its URL's fragment. */
export interface MintedLink {
  id: string;
  secret: string;
  expiresAt: Date;
}

/**
 * A valid embedded portal session (docs/dashboard.md#embedding-the-portal): what it may see
 * and do, as its link was minted.
 */
export interface PortalSession {
  linkId: string;
  accountId: number;
  role: DashboardRole;
  /** Null: every campaign of the account. */
  campaignIds: number[] | null;
  subjectId: string;
  keyPrefix: string | null;
  pages: PortalPage[];
  theme: PortalTheme;
  parentOrigin: string;
  expiresAt: Date;
}

/** How a portal page may be framed ({@link PortalLinks.framingOf}). */
export interface PortalFraming {
  /** The origins allowed to frame it; empty: none. */
  frameAncestors: string[];
  /** The origin its messages go to and come from. */
  parentOrigin: string;
}

function sessionOf(link: PortalLinkRow): PortalSession {
  return {
    linkId: link.id,
    accountId: link.accountId,
    role: link.role,
    campaignIds: link.campaignIds,
    subjectId: link.subjectId,
    keyPrefix: link.keyPrefix,
    pages: link.pages,
    theme: link.theme,
    parentOrigin: link.parentOrigin,
    expiresAt: link.expiresAt,
  };
}

/**
 * Portal links and the embedded sessions made from them (docs/dashboard.md#embedding-the-portal,
 * docs/security.md#embedded-portal): minted by an API key (limited to its campaigns) or the CLI,
 * exchanged once for a session token held in the portal page's memory, checked on every request
 * (one indexed read: a revocation applies to the next request in every process), revoked with
 * their session at once. Secrets and tokens are stored only as SHA-256 hashes. Minting,
 * revoking and the exchange are recorded in the audit log in their own transaction.
 */
@Injectable()
export class PortalLinks {
  constructor(
    private readonly links: PortalLinksRepository,
    private readonly campaigns: CampaignsService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Mints a link for `minter`'s account from the body of a mint request, recorded as
   * `portal_link.create` (role, campaigns, pages, subject id, parent origin, expiry; never the
   * secret) by `actor`.
   * @param body the request as received ({@link checkedMintRequest}).
   * @returns the link's id, secret and end.
   * @throws InvalidInputError for a bad field, a `parent_origin` the account has not registered,
   *   or no origin at all; CampaignNotFoundError for a named campaign the key may not use
   *   (another account's, outside the key's list, or none): nothing is written.
   */
  async mint(minter: PortalMinter, body: unknown, actor?: AuditActor): Promise<MintedLink> {
    const request = checkedMintRequest(body);
    const campaignIds = await this.scopedCampaigns(minter, request.campaignIds);
    const parentOrigin = await this.parentOrigin(minter.accountId, request.parentOrigin);
    const secret = generateLinkSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + request.expiresIn * 1000);
    const id = await this.dataSource.transaction(async (manager) => {
      const linkId = await this.links.insert(
        {
          accountId: minter.accountId,
          keyPrefix: minter.keyPrefix,
          secretHash: hashPortalSecret(secret),
          role: request.role,
          campaignIds,
          subjectId: request.subject.id,
          subjectName: request.subject.name,
          subjectEmail: request.subject.email,
          pages: request.pages,
          theme: request.theme,
          parentOrigin,
          createdAt: now,
          expiresAt,
        },
        manager,
      );
      await this.audit.recordChange(
        actor,
        {
          accountId: minter.accountId,
          action: 'portal_link.create',
          objectType: 'portal_link',
          objectId: linkId,
          details: {
            role: request.role,
            campaign_ids: campaignIds,
            pages: request.pages,
            subject_id: request.subject.id,
            parent_origin: parentOrigin,
            expires_at: expiresAt.toISOString(),
          },
        },
        manager,
      );
      return linkId;
    });
    return { id, secret, expiresAt };
  }

  /**
   * The campaigns a link may show: those named, each of which the minter may use, or the
   * minter's own list when none is named.
   * @throws CampaignNotFoundError for the first named campaign the minter may not use.
   */
  private async scopedCampaigns(
    minter: PortalMinter,
    named: number[] | null,
  ): Promise<number[] | null> {
    if (named === null) return minter.campaignIds;
    for (const id of named) {
      const allowed = minter.campaignIds === null || minter.campaignIds.includes(id);
      if (!allowed || !(await this.campaigns.allBelongTo(minter.accountId, [id]))) {
        throw new CampaignNotFoundError(id);
      }
    }
    return named;
  }

  /**
   * The origin a link's portal is framed by: the one asked for, which must be registered, or
   * the account's only one.
   * @throws InvalidInputError (field `parent_origin`).
   */
  private async parentOrigin(accountId: number, asked: string | null): Promise<string> {
    const registered = await this.campaigns.portalOrigins(accountId);
    if (asked !== null) {
      const match = registered.find((origin) => origin === asked.replace(/\/$/, '').toLowerCase());
      if (match === undefined) {
        throw InvalidInputError.field(
          'parent_origin',
          'must be one of the account’s portal origins (set them in the dashboard’s account settings or with portal origins set)',
        );
      }
      return match;
    }
    if (registered.length === 1) return registered[0];
    throw InvalidInputError.field(
      'parent_origin',
      registered.length === 0
        ? 'cannot be chosen: the account has no portal origins (set them in the dashboard’s account settings or with portal origins set)'
        : 'is required: the account has several portal origins',
    );
  }

  /**
   * Revokes link `id`, which ends its session at once, recorded as `portal_link.revoke` by
   * `actor` (once: revoking a revoked link changes nothing).
   * @param accountId the caller's account; null for the CLI (any account).
   * @throws NotFoundError when there is no such link of the account (the same for another
   *   account's).
   */
  async revoke(id: string, accountId: number | null, actor?: AuditActor): Promise<void> {
    const notFound = new NotFoundError(`portal session ${id} does not exist`);
    if (!isPortalLinkId(id)) throw notFound;
    await this.dataSource.transaction(async (manager) => {
      const revoked = await this.links.revoke(id, accountId, this.clock.now(), manager);
      if (revoked === null) throw notFound;
      if (revoked.state === 'already') return;
      await this.audit.recordChange(
        actor,
        {
          accountId: revoked.accountId,
          action: 'portal_link.revoke',
          objectType: 'portal_link',
          objectId: id,
        },
        manager,
      );
    });
  }

  /**
   * The one exchange of a link for an embedded session (docs/security.md#embedded-portal),
   * recorded as `portal_link.exchange` by the portal's subject from `ip`.
   * @returns the session's token (answered this once, never stored) and the session; null when
   *   the link is unknown, its secret wrong, or it is used, revoked or expired.
   */
  async exchange(
    linkId: unknown,
    secret: unknown,
    ip: string,
  ): Promise<{ token: string; session: PortalSession } | null> {
    if (!isPortalLinkId(linkId) || !isLinkSecretShaped(secret)) return null;
    const token = generatePortalSessionToken();
    return this.dataSource.transaction(async (manager) => {
      const link = await this.links.exchange(
        linkId,
        hashPortalSecret(secret),
        hashPortalSecret(token),
        this.clock.now(),
        manager,
      );
      if (link === null) return null;
      const session = sessionOf(link);
      await this.audit.recordChange(
        {
          type: 'portal',
          accountId: link.accountId,
          subjectId: link.subjectId,
          keyPrefix: link.keyPrefix,
          ip,
        },
        {
          accountId: link.accountId,
          action: 'portal_link.exchange',
          objectType: 'portal_link',
          objectId: link.id,
        },
        manager,
      );
      return { token, session };
    });
  }

  /**
   * The session of `token` if it is valid now: its link neither revoked nor expired. One
   * indexed read per request, so a revocation applies to the next request in every process.
   * @returns null for a malformed or unknown token, a revoked or an expired link.
   */
  async resolve(token: string | undefined): Promise<PortalSession | null> {
    if (!isPortalSessionTokenShaped(token)) return null;
    const link = await this.links.findBySessionTokenHash(hashPortalSecret(token));
    if (link === null || link.revokedAt !== null) return null;
    if (link.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return sessionOf(link);
  }

  /**
   * How link `id`'s portal page may be framed (docs/security.md#embedded-portal): the origins
   * of its `frame-ancestors` (the account's registered portal origins, read now) and the one
   * origin the page talks to. Null for an id that names no link.
   */
  async framingOf(id: string): Promise<PortalFraming | null> {
    if (!isPortalLinkId(id)) return null;
    const link = await this.links.find(id);
    if (link === null) return null;
    return {
      frameAncestors: await this.campaigns.portalOrigins(link.accountId),
      parentOrigin: link.parentOrigin,
    };
  }
}
