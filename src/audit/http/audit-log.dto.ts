import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { AUDIT_ACTIONS } from '..';
import { PageQueryDto } from '../../dashboard-kernel';

/**
 * Who made an entry: a dashboard user, an operator through the CLI, or the service itself
 * (`system`: an endpoint disabled because it answered 410 Gone).
 */
@ApiSchema({ name: 'AuditActor' })
export class AuditActorDto {
  @ApiProperty({ enum: ['user', 'cli', 'system', 'portal', 'api_key'], example: 'user' })
  type!: 'user' | 'cli' | 'system' | 'portal' | 'api_key';

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The user; null for the CLI, the system and a failed sign-in',
  })
  user_id!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The user’s email, or the one a failed sign-in tried; null for the CLI and the system',
  })
  email!: string | null;

  @ApiProperty({
    type: 'string',
    required: false,
    description:
      'Only for type `portal`: `portal:<subject id>`, the platform’s own user the portal link was minted for',
    example: 'portal:user_42',
  })
  label?: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    required: false,
    description:
      'Only for types `portal` and `api_key`: the prefix of the API key that minted the portal link (null: minted by the CLI) or made the change',
    example: 'capi_Zm9vYmF',
  })
  key_prefix?: string | null;
}

/** One entry of the audit log (docs/dashboard.md#audit-log). */
@ApiSchema({ name: 'AuditEntry' })
export class AuditEntryDto {
  @ApiProperty({ type: 'integer', example: 512 })
  id!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: AuditActorDto })
  actor!: AuditActorDto;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Client IP; null for the CLI',
    example: '203.0.113.7',
  })
  ip!: string | null;

  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'endpoint.update' })
  action!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'endpoint' })
  object_type!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: '7' })
  object_id!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'What changed; never a secret, key or password',
    example: { changes: { enabled: false } },
  })
  details!: Record<string, unknown>;
}

/** A page of the audit log, newest first. */
@ApiSchema({ name: 'AuditLogPage' })
export class AuditLogPageDto {
  @ApiProperty({ type: [AuditEntryDto] })
  items!: AuditEntryDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass it as `cursor` for the next page; null on the last page',
  })
  next_cursor!: string | null;
}

/**
 * The query of `GET /dashboard/api/audit-log`: paging, and the filters by action and by user
 * (their values are checked by `AuditLog.list`); unknown or repeated parameters are refused.
 */
export class AuditLogQueryDto extends PageQueryDto {
  @IsOptional()
  @IsString()
  action?: string;

  @IsOptional()
  @IsString()
  user?: string;
}
