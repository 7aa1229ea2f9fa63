import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsString, MaxLength } from 'class-validator';
import { PORTAL_PAGES } from '..';
import { PortalThemeDto } from './portal-session.dto';

/** Body of `POST /dashboard/api/portal/exchange` (docs/dashboard.md#embedding-the-portal). */
@ApiSchema({ name: 'PortalExchangeRequest' })
export class PortalExchangeRequestDto {
  @ApiProperty({ format: 'uuid', description: 'The link’s id, from the portal page’s path' })
  @IsString()
  @MaxLength(100)
  link_id!: string;

  @ApiProperty({ description: 'The link’s secret, from the portal URL’s fragment' })
  @IsString()
  @MaxLength(100)
  secret!: string;
}

/** What an embedded portal session may see and do, and how it looks. */
@ApiSchema({ name: 'PortalSessionScope' })
export class PortalSessionScopeDto {
  @ApiProperty({ format: 'uuid' })
  link_id!: string;

  @ApiProperty({ enum: ['admin', 'viewer'] })
  role!: 'admin' | 'viewer';

  @ApiProperty({
    type: [Number],
    nullable: true,
    description: 'The campaigns shown; null: every campaign of the account',
  })
  campaign_ids!: number[] | null;

  @ApiProperty({ type: [String], enum: PORTAL_PAGES })
  pages!: string[];

  @ApiProperty({ type: PortalThemeDto })
  theme!: PortalThemeDto;

  @ApiProperty({ description: 'The one origin the portal talks to (postMessage)' })
  parent_origin!: string;

  @ApiProperty({ description: 'The platform’s own user (`subject.id` of the mint request)' })
  subject_id!: string;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

/** Answer of the exchange: the session's token, answered this once, and its scope. */
@ApiSchema({ name: 'PortalExchangeResponse' })
export class PortalExchangeResponseDto {
  @ApiProperty({
    description:
      'The embedded session’s token: keep it in memory only, send it as Authorization: Bearer on every dashboard API call',
  })
  token!: string;

  @ApiProperty({ type: PortalSessionScopeDto })
  session!: PortalSessionScopeDto;
}

/** The account's portal origins (docs/dashboard.md#embedding-the-portal). */
@ApiSchema({ name: 'PortalOrigins' })
export class PortalOriginsDto {
  @ApiProperty({
    type: [String],
    description:
      'Origins allowed to frame the portal: https://host[:port], or http:// for localhost and 127.0.0.0/8 only',
    example: ['https://app.example.com'],
  })
  @IsArray()
  @IsString({ each: true })
  origins!: string[];
}
