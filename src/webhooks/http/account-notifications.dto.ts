import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

// The account's notification URL (docs/webhooks.md#operational-messages).

/** Answer of `GET /dashboard/api/account/notifications`. */
@ApiSchema({ name: 'NotificationSetting' })
export class NotificationSettingDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Where operational messages about the account’s endpoints go; null: none',
    example: 'https://ops.example.com/campaign-api',
  })
  url!: string | null;
}

/** Body of `PUT /dashboard/api/account/notifications`. */
@ApiSchema({ name: 'NotificationSettingRequest' })
export class NotificationSettingRequestDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'An http(s) URL, or null to stop the messages',
    example: 'https://ops.example.com/campaign-api',
  })
  @IsOptional()
  @IsString()
  url!: string | null;
}

/** Answer of `PUT /dashboard/api/account/notifications`. */
@ApiSchema({ name: 'UpdatedNotificationSetting' })
export class UpdatedNotificationSettingDto extends NotificationSettingDto {
  @ApiPropertyOptional({
    description:
      'The signing secret of the messages, shown this once: only when the URL is new (the same URL again keeps its secret)',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret?: string;
}
