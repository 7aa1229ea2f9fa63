import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** A campaign of the account, as `GET /dashboard/api/campaigns` lists it (docs/dashboard.md#routes). */
@ApiSchema({ name: 'DashboardCampaign' })
export class DashboardCampaignDto {
  @ApiProperty({ type: 'integer', example: 42 })
  id!: number;

  @ApiProperty({ example: 'Spring open house' })
  name!: string;

  @ApiProperty({
    description: 'ISO 3166-1 alpha-2 region for phones written without `+`',
    example: 'US',
  })
  default_region!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:44:45.123Z' })
  created_at!: string;

  @ApiProperty({ type: 'integer', description: 'How many webhook endpoints it has', example: 2 })
  endpoint_count!: number;
}

/** The answer's shape (dates as `Date`, serialised as ISO 8601 UTC). */
export interface DashboardCampaign {
  id: number;
  name: string;
  default_region: string;
  created_at: Date;
  endpoint_count: number;
}
