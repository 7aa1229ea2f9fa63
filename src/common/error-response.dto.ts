import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiSchema } from '@nestjs/swagger';
import { ERROR_CODES, PUBLIC_ERROR_CODES, type ErrorCode } from './api-error';

/** Every non-2xx body of the public API (docs/api.md#errors): exactly these two fields. */
@ApiSchema({ name: 'ErrorResponse' })
export class ErrorResponseDto {
  @ApiProperty({
    description: 'Machine-readable error code',
    enum: PUBLIC_ERROR_CODES,
    example: 'forbidden',
  })
  error!: ErrorCode;

  @ApiProperty({
    description: 'Human-readable description',
    example: 'This token may not use that campaign',
  })
  message!: string;
}

/**
 * Every non-2xx body of the dashboard API (docs/dashboard.md): the public codes and `conflict`.
 * Named `ErrorResponse` too: each of the two OpenAPI documents holds one of the two.
 */
@ApiSchema({ name: 'ErrorResponse' })
export class DashboardErrorResponseDto {
  @ApiProperty({
    description: 'Machine-readable error code',
    enum: ERROR_CODES,
    example: 'not_found',
  })
  error!: ErrorCode;

  @ApiProperty({ description: 'Human-readable description', example: 'Not found' })
  message!: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: invalid JSON, a missing required field, an invalid campaign or endpoint id, or compliance not acknowledged',
  401: 'Missing, invalid or expired bearer token (sets `WWW-Authenticate: Bearer`)',
  403: 'The token may not use this campaign (also when it does not exist)',
  404: 'Not found',
  409: 'Idempotency-Key reused with another body, or its first request still running',
  413: 'Body over 16 MiB',
  415: 'Content-Type is not application/json',
  422: 'The upload envelope has the wrong shape; the message names every problem',
  429: 'Rate limited; `Retry-After` gives the seconds to wait',
  500: 'Unexpected fault; the log has the request id',
  503: 'PostgreSQL or Redis unreachable; retry shortly',
};

/** Documents the `{error, message}` responses an operation can return, by status. */
export function ApiErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto }),
    ),
  );
}
