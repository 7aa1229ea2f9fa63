import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { validateBody } from '../common/validate-body';
import { ApiKeyTokenRequestDto, ApiKeyTokenResponse } from './dto/api-key-token.dto';
import { Public } from './public.decorator';
import { TokenService } from './token.service';

/** `POST /api/v1/auth/api-key/token` (spec 4, 5; CONTRACT 3). */
@Controller('auth')
export class AuthController {
  constructor(private readonly tokens: TokenService) {}

  /**
   * Exchanges `{api_key}` for `{access_token, token_type: "bearer", expires_in}`.
   * 400 `bad_request` when `api_key` is missing or not a string; 401 when unknown or revoked.
   */
  @Public()
  @Post('api-key/token')
  @HttpCode(200)
  async exchange(@Body() body: Record<string, unknown>): Promise<ApiKeyTokenResponse> {
    if (body.api_key === undefined || body.api_key === null)
      throw ApiError.badRequest('api_key is required');
    const { dto, problems } = validateBody(ApiKeyTokenRequestDto, body, false);
    if (problems.length > 0) throw ApiError.badRequest(problems[0]);
    return this.tokens.exchange(dto.api_key);
  }
}
