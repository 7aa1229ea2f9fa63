import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  IsString,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { MAX_CUSTOM_HEADER_NAME, MAX_CUSTOM_HEADER_VALUE } from '..';
import type { CustomHeaderView } from '..';

// The dashboard's custom header schemas (docs/webhooks.md#custom-headers). The request DTOs
// check types only: names, values and limits are the domain's (`src/webhooks/custom-headers.ts`).

/** One custom header as given in a create or update. */
@ApiSchema({ name: 'CustomHeaderInput' })
export class CustomHeaderInputDto {
  @ApiProperty({ maxLength: MAX_CUSTOM_HEADER_NAME, example: 'Authorization' })
  name!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_CUSTOM_HEADER_VALUE,
    description:
      'The value; may be left out for a secret header that already has one, which keeps it',
    example: 'Bearer 3f9c2a…',
  })
  value?: string | null;

  @ApiPropertyOptional({
    default: false,
    description: 'Encrypt the value at rest, mask it in reads and redact it from the delivery log',
  })
  secret?: boolean;
}

/** One custom header as read: a secret one's value masked. */
@ApiSchema({ name: 'CustomHeader' })
export class CustomHeaderDto implements CustomHeaderView {
  @ApiProperty({ example: 'X-Tenant' })
  name!: string;

  @ApiProperty()
  secret!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The value; null for a secret header, except in the answer of the create or update that set it',
  })
  value!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'A secret header’s mask: `••••` and, for a value of 16 characters or more, its last 4; null for a plain one',
    example: '••••9f2c',
  })
  masked_value!: string | null;
}

/** Body of `POST /dashboard/api/endpoints/{endpoint_id}/headers/reveal`. */
@ApiSchema({ name: 'RevealHeaderRequest' })
export class RevealHeaderRequestDto {
  @ApiProperty({ description: 'The secret header’s name (any case)', example: 'Authorization' })
  @IsString()
  name!: string;
}

/** Answer of `POST /dashboard/api/endpoints/{endpoint_id}/headers/reveal`. */
@ApiSchema({ name: 'RevealedHeader' })
export class RevealedHeaderDto {
  @ApiProperty({ example: 'Authorization' })
  name!: string;

  @ApiProperty({ description: 'The value in clear', example: 'Bearer 3f9c2a…' })
  value!: string;
}

const INPUT_KEYS = new Set(['name', 'value', 'secret']);

/**
 * `headers` is an array of `{name: string, value?: string | null, secret?: boolean}` objects
 * with no other key.
 */
@ValidatorConstraint({ name: 'customHeaderList' })
export class CustomHeaderList implements ValidatorConstraintInterface {
  validate(list: unknown): boolean {
    return (
      Array.isArray(list) &&
      list.every((item: unknown) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
        const header = item as Record<string, unknown>;
        return (
          Object.keys(header).every((key) => INPUT_KEYS.has(key)) &&
          typeof header.name === 'string' &&
          (header.value === undefined ||
            header.value === null ||
            typeof header.value === 'string') &&
          (header.secret === undefined || typeof header.secret === 'boolean')
        );
      })
    );
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be an array of {name, value, secret} objects: name a string, value a string or null, secret a boolean`;
  }
}
