import { InvalidInputError } from '../common/domain-error';
import { isDashboardRole, type DashboardRole } from '../users';

/** The longest a portal link lives, in seconds (docs/dashboard.md#embedding-the-portal). */
export const PORTAL_MAX_EXPIRES_IN_S = 3600;

/**
 * The dashboard sections a portal may show (docs/dashboard.md#embedding-the-portal):
 * `endpoints` (the campaigns' endpoints, their settings, secret and test event) and
 * `deliveries` (each endpoint's delivery log and its attempts).
 */
export const PORTAL_PAGES = ['endpoints', 'deliveries'] as const;

/** One of {@link PORTAL_PAGES}. */
export type PortalPage = (typeof PORTAL_PAGES)[number];

/** The sections shown when a mint request names none. */
export const DEFAULT_PORTAL_PAGES: readonly PortalPage[] = ['endpoints', 'deliveries'];

/** How the portal looks (docs/dashboard.md#embedding-the-portal); each part optional. */
export interface PortalTheme {
  /** `#rrggbb`. */
  primary_color?: string;
  /** An `https:` URL of at most 2048 characters, shown as an `<img>`. */
  logo_url?: string;
  scheme?: 'light' | 'dark';
}

/** The platform's own user a link is minted for, recorded in the audit log. */
export interface PortalSubject {
  id: string;
  name: string | null;
  email: string | null;
}

/** A mint request, checked ({@link checkedMintRequest}). */
export interface MintRequest {
  /** Null: every campaign the minting key may use. */
  campaignIds: number[] | null;
  role: DashboardRole;
  /** Seconds, 1 to {@link PORTAL_MAX_EXPIRES_IN_S}. */
  expiresIn: number;
  subject: PortalSubject;
  pages: PortalPage[];
  theme: PortalTheme;
  /** Null: the account's one registered origin. */
  parentOrigin: string | null;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;
const MINT_FIELDS = new Set([
  'campaign_ids',
  'role',
  'expires_in',
  'subject',
  'pages',
  'theme',
  'parent_origin',
]);

function field(name: string, problem: string): InvalidInputError {
  return InvalidInputError.field(name, problem);
}

function optionalText(value: unknown, name: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (
    typeof value !== 'string' ||
    value.trim() === '' ||
    [...value].length > max ||
    value.includes('\0')
  ) {
    throw field(name, `must be a string of 1 to ${max} characters`);
  }
  return value.trim();
}

/**
 * A portal theme (docs/dashboard.md#embedding-the-portal), checked strictly: `primary_color`
 * `#rrggbb`, `logo_url` an `https:` URL of at most 2048 characters, `scheme` `light` or `dark`,
 * nothing else.
 * @throws InvalidInputError (field `theme…`).
 */
export function checkedTheme(value: unknown): PortalTheme {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw field('theme', 'must be an object');
  const theme: PortalTheme = {};
  for (const [key, part] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'primary_color') {
      if (typeof part !== 'string' || !COLOR.test(part)) {
        throw field('theme.primary_color', 'must be a colour written #rrggbb');
      }
      theme.primary_color = part.toLowerCase();
    } else if (key === 'logo_url') {
      let url: URL | null = null;
      try {
        url = typeof part === 'string' && part.length <= 2048 ? new URL(part) : null;
      } catch {
        url = null;
      }
      if (url === null || url.protocol !== 'https:' || url.username || url.password) {
        throw field('theme.logo_url', 'must be an https URL of at most 2048 characters');
      }
      theme.logo_url = url.href;
    } else if (key === 'scheme') {
      if (part !== 'light' && part !== 'dark') throw field('theme.scheme', 'must be light or dark');
      theme.scheme = part;
    } else {
      throw field(`theme.${key}`, 'is not a theme setting (primary_color, logo_url, scheme)');
    }
  }
  return theme;
}

/**
 * The body of `POST /api/v1/portal/sessions` (or the CLI's `portal create`), checked
 * (docs/api.md#portal-sessions): types, ranges, the subject, the pages and the theme. Which
 * campaigns and which parent origin the account allows is the service's to check.
 * @throws InvalidInputError naming the field.
 */
export function checkedMintRequest(body: unknown): MintRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('the body must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((key) => !MINT_FIELDS.has(key));
  if (unknown.length > 0) throw field(unknown[0], 'is not a field of a portal session request');
  let campaignIds: number[] | null = null;
  if (input.campaign_ids !== undefined && input.campaign_ids !== null) {
    const ids = input.campaign_ids;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > 100 ||
      !ids.every((id) => Number.isSafeInteger(id) && (id as number) >= 1)
    ) {
      throw field('campaign_ids', 'must be a list of 1 to 100 positive integer campaign ids');
    }
    campaignIds = [...new Set(ids as number[])];
  }
  if (!isDashboardRole(input.role)) throw field('role', 'must be viewer or admin');
  const expiresIn = input.expires_in;
  if (
    typeof expiresIn !== 'number' ||
    !Number.isInteger(expiresIn) ||
    expiresIn < 1 ||
    expiresIn > PORTAL_MAX_EXPIRES_IN_S
  ) {
    throw field(
      'expires_in',
      `must be a whole number of seconds from 1 to ${PORTAL_MAX_EXPIRES_IN_S}`,
    );
  }
  const subjectInput = input.subject;
  if (typeof subjectInput !== 'object' || subjectInput === null || Array.isArray(subjectInput)) {
    throw field('subject', 'must be an object with an id');
  }
  const { id, name, email, ...rest } = subjectInput as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw field(`subject.${extra[0]}`, 'is not a field of the subject (id, name, email)');
  const subjectId = optionalText(id, 'subject.id', 200);
  if (subjectId === null) throw field('subject.id', 'is required: the id of your own user');
  const subject: PortalSubject = {
    id: subjectId,
    name: optionalText(name, 'subject.name', 200),
    email: optionalText(email, 'subject.email', 320),
  };
  let pages: PortalPage[] = [...DEFAULT_PORTAL_PAGES];
  if (input.pages !== undefined && input.pages !== null) {
    const asked = input.pages;
    if (
      !Array.isArray(asked) ||
      asked.length === 0 ||
      !asked.every((page) => (PORTAL_PAGES as readonly unknown[]).includes(page))
    ) {
      throw field('pages', `must be a non-empty list of ${PORTAL_PAGES.join(', ')}`);
    }
    pages = [...new Set(asked as PortalPage[])];
  }
  const parentOrigin = input.parent_origin;
  if (parentOrigin !== undefined && parentOrigin !== null && typeof parentOrigin !== 'string') {
    throw field('parent_origin', 'must be one of the account’s portal origins');
  }
  return {
    campaignIds,
    role: input.role,
    expiresIn,
    subject,
    pages,
    theme: checkedTheme(input.theme),
    parentOrigin: typeof parentOrigin === 'string' ? parentOrigin : null,
  };
}
