import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { DASHBOARD_ROLES, type DashboardRole } from '../users';

/** Body of `POST /dashboard/api/session` (docs/dashboard.md#sessions). */
@ApiSchema({ name: 'SignInRequest' })
export class SignInRequestDto {
  @ApiProperty({
    description: 'The user’s email, any case',
    example: 'ops@acme.example',
    maxLength: 320,
  })
  email!: string;

  @ApiProperty({
    description: 'The user’s password',
    example: 'correct horse battery staple',
    maxLength: 1024,
  })
  password!: string;
}

/** The signed-in user. */
@ApiSchema({ name: 'SessionUser' })
export class SessionUserDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  account_id!: number;

  @ApiProperty({ example: 'ops@acme.example' })
  email!: string;

  @ApiProperty({ enum: DASHBOARD_ROLES, example: 'admin' })
  role!: DashboardRole;
}

/** The answer of `POST` and `GET /dashboard/api/session`. */
@ApiSchema({ name: 'Session' })
export class SessionResponseDto {
  @ApiProperty({ type: SessionUserDto })
  user!: SessionUserDto;

  @ApiProperty({
    description:
      'Send it as `X-CSRF-Token` with every POST, PUT, PATCH and DELETE of this session (docs: cross-site request forgery)',
    example: 'vQ1mZ3m0b3V3a2Z0c2RmZ2hqa2xxd2VydHl1aW9wYXM',
  })
  csrf_token!: string;
}

/** The session's answer. */
export interface SessionResponse {
  user: { id: number; account_id: number; email: string; role: DashboardRole };
  csrf_token: string;
}
