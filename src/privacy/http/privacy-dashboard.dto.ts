import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { ErasureCountsDto } from './erasure.dto';

// The dashboard's privacy schemas (docs/dashboard.md#privacy): what an admin sends to erase a
// person or change the suppression list, and what comes back. No answer names the person: not
// the phone, not the email, not their keyed hashes.

/** One person, by phone and/or email, as the dashboard's privacy forms send it. */
@ApiSchema({ name: 'DashboardPersonRequest' })
export class DashboardPersonRequestDto {
  @ApiPropertyOptional({
    description: 'The phone in any format uploads accept (normalised like uploads)',
    example: '+1 415-555-0199',
    maxLength: 64,
  })
  @IsOptional()
  @IsString()
  phone?: string;

  @ApiPropertyOptional({ example: 'alice@acme.com', maxLength: 320 })
  @IsOptional()
  @IsString()
  email?: string;

  @ApiPropertyOptional({
    description:
      'Region (ISO 3166-1 alpha-2) for a phone without +; without it such a phone is refused',
    example: 'US',
  })
  @IsOptional()
  @IsString()
  region?: string;
}

/** Body of `POST /dashboard/api/privacy/erasures`. */
@ApiSchema({ name: 'DashboardErasureRequest' })
export class DashboardErasureRequestDto extends DashboardPersonRequestDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description:
      'Erase in this campaign only (its region reads a phone without +); absent or null: in every campaign of the account',
    example: 42,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  campaign_id?: number | null;

  @ApiPropertyOptional({
    description: "Add the phone and email to the account's suppression list (default true)",
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  suppress?: boolean;
}

/** An erasure receipt as the dashboard shows it: counts and scope, never the person. */
@ApiSchema({ name: 'DashboardErasureReceipt' })
export class DashboardErasureReceiptDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The campaign erased in; null: every campaign of the account',
  })
  campaign_id!: number | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ example: 'user:3', description: '`user:<id>`, `cli` or `api_key:<id>`' })
  requested_by!: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The dashboard user’s email when a user of the account asked; null otherwise',
    example: 'ada@example.com',
  })
  requested_by_email!: string | null;
  @ApiProperty({ description: 'Whether the person was added to the suppression list' })
  suppressed!: boolean;
  @ApiProperty({ description: 'Whether the person was named by a phone' }) by_phone!: boolean;
  @ApiProperty({ description: 'Whether the person was named by an email' }) by_email!: boolean;
  @ApiProperty({ type: ErasureCountsDto }) counts!: ErasureCountsDto;
}

/** `GET /dashboard/api/privacy/suppressions`: the list's size, never its entries. */
@ApiSchema({ name: 'SuppressionListSize' })
export class SuppressionListSizeDto {
  @ApiProperty({ type: 'integer', example: 12 }) entries!: number;
}

/** What adding one person did. */
@ApiSchema({ name: 'SuppressionAdded' })
export class SuppressionAddedDto {
  @ApiProperty({ type: 'integer', description: 'Entries new on the list (0: already listed)' })
  added!: number;
}

/** What removing one person did. */
@ApiSchema({ name: 'SuppressionRemoved' })
export class SuppressionRemovedDto {
  @ApiProperty({ type: 'integer', description: 'Entries that were on the list' })
  removed!: number;
}

/** What a suppression CSV did: every non-empty cell counted once. */
@ApiSchema({ name: 'SuppressionImport' })
export class SuppressionImportDto {
  @ApiProperty({ type: 'integer', description: 'Non-empty cells read' }) rows!: number;
  @ApiProperty({ type: 'integer', description: 'Entries new on the list' }) added!: number;
  @ApiProperty({ type: 'integer', description: 'Identifiers on the list already' })
  already_listed!: number;
  @ApiProperty({ type: 'integer', description: 'Cells that are no phone or email (a header)' })
  invalid!: number;
  @ApiProperty({ type: 'integer', description: 'Cells that look like formulas: refused' })
  formula_cells!: number;
}
