import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PORTAL_MAX_EXPIRES_IN_S, PORTAL_PAGES } from '..';

/** The platform's own user a portal link is for (docs/api.md#portal-sessions). */
@ApiSchema({ name: 'PortalSubject' })
export class PortalSubjectDto {
  @ApiProperty({
    description: 'Your own user’s id (1 to 200 characters); the audit log shows portal:<id>',
    example: 'user_42',
    maxLength: 200,
  })
  id!: string;

  @ApiPropertyOptional({ description: 'Your user’s name, kept with the link', maxLength: 200 })
  name?: string;

  @ApiPropertyOptional({ description: 'Your user’s email, kept with the link', maxLength: 320 })
  email?: string;
}

/** How the portal looks (docs/dashboard.md#embedding-the-portal); each part optional. */
@ApiSchema({ name: 'PortalTheme' })
export class PortalThemeDto {
  @ApiPropertyOptional({ pattern: '^#[0-9a-fA-F]{6}$', example: '#0b7285' })
  primary_color?: string;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 2048,
    description: 'An https URL of your logo, shown at the top of the portal',
    example: 'https://app.example.com/logo.svg',
  })
  logo_url?: string;

  @ApiPropertyOptional({ enum: ['light', 'dark'] })
  scheme?: 'light' | 'dark';
}

/** Body of `POST /api/v1/portal/sessions` (docs/api.md#portal-sessions). */
@ApiSchema({ name: 'PortalSessionRequest' })
export class PortalSessionRequestDto {
  @ApiPropertyOptional({
    type: [Number],
    description:
      'The campaigns the portal shows, each one the token may use; by default every campaign the token may use',
    example: [12],
  })
  campaign_ids?: number[];

  @ApiProperty({
    enum: ['viewer', 'admin'],
    description: 'viewer: read only; admin: may also change endpoints and send test events',
  })
  role!: 'viewer' | 'admin';

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: PORTAL_MAX_EXPIRES_IN_S,
    description:
      'Seconds until the link, and the session made from it, end (the link is exchanged once, at the first load)',
    example: 900,
  })
  expires_in!: number;

  @ApiProperty({ type: PortalSubjectDto })
  subject!: PortalSubjectDto;

  @ApiPropertyOptional({
    type: [String],
    enum: PORTAL_PAGES,
    description:
      'The sections shown, and the only ones the session may use (any other dashboard request of it answers 403); by default endpoints and deliveries',
  })
  pages?: string[];

  @ApiPropertyOptional({ type: PortalThemeDto })
  theme?: PortalThemeDto;

  @ApiPropertyOptional({
    description:
      'The origin of the page that frames the portal, one of the account’s portal origins; may be left out when the account has exactly one',
    example: 'https://app.example.com',
  })
  parent_origin?: string;
}

/** 201 answer of `POST /api/v1/portal/sessions`. */
@ApiSchema({ name: 'PortalSession' })
export class PortalSessionDto {
  @ApiProperty({ format: 'uuid', description: 'The link’s id, for DELETE /portal/sessions/{id}' })
  id!: string;

  @ApiProperty({
    format: 'uri',
    description:
      'The portal’s URL, to put in an iframe’s src: its secret is in the fragment (#…), which browsers never send to a server; usable once',
    example:
      'https://campaigns.example.com/portal/8d6c0d4e-6f0b-4b8e-9a53-2c1f8f0c4f11#cpl_q3Vx8mZ2bN1cT7yL0pR4sW9eK6hJ5dF2gA8uY3iO1nE',
  })
  url!: string;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}
