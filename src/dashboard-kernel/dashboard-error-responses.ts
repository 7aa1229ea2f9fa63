import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { DashboardErrorResponseDto } from '../common/error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: the body is not a JSON object, a sign-in field is missing or of the wrong type, a path id is not a positive integer, or the delivery ledger’s `days` is not a whole number from 1 to 90',
  401: 'No valid session (never signed in, signed out, expired, or the user was disabled); for the sign-in, a wrong email or password or a disabled user, one answer for all',
  403: 'Refused by the cross-site request forgery rules (Origin, Sec-Fetch-Site, X-CSRF-Token), or a viewer asking for a change',
  404: 'Not found, or not of your account (one answer for both)',
  409: 'Conflict: the resource is not in a state that allows this (a cancelled or failed import started, a recovery of a disabled endpoint)',
  415: 'Content-Type is not application/json',
  422: 'A field or query parameter is unknown, of the wrong type or has a value that is not acceptable; the message names each problem',
  429: 'Too many at once: sign-in attempts for this email or from this address, or spreadsheet uploads in progress for this account or this server; `Retry-After` gives the seconds to wait',
  500: 'Unexpected fault; the log has the request id',
  503: 'PostgreSQL or Redis unreachable; retry shortly',
};

/**
 * The OpenAPI response object of a dashboard `{error, message}` answer with `status`, as
 * {@link DashboardErrorResponses} documents it: for the document builder, which gives every
 * operation the `422` that `DashboardInputGuard` may answer
 * (docs/dashboard.md#requests-and-answers).
 */
export function dashboardErrorResponseObject(status: number): {
  description: string;
  content: { 'application/json': { schema: { $ref: string } } };
} {
  return {
    description: DESCRIPTIONS[status],
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
  };
}

/** Documents the `{error, message}` answers of a dashboard API operation, by status. */
export function DashboardErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], type: DashboardErrorResponseDto }),
    ),
  );
}
