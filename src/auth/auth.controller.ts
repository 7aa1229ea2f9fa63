import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../common/error-response.dto';
import { ApiError } from '../common/api-error';
import { validateBody } from '../common/validate-body';
import {
  ApiKeyTokenRequestDto,
  ApiKeyTokenResponse,
  ApiKeyTokenResponseDto,
} from './dto/api-key-token.dto';
import { Public } from './public.decorator';
import { TokenService } from './token.service';

/** `POST /api/v1/auth/api-key/token` (docs/api.md#authentication). */
@ApiTags('auth')
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
  @ApiOperation({
    summary: 'Exchange an API key for a bearer token',
    operationId: 'exchangeApiKey',
  })
  @ApiBody({ type: ApiKeyTokenRequestDto })
  @ApiOkResponse({ type: ApiKeyTokenResponseDto, description: 'A bearer token' })
  @ApiErrorResponses(400, 401, 413, 415, 429, 500, 503)
  async exchange(@Body() body: Record<string, unknown>): Promise<ApiKeyTokenResponse> {
    if (body.api_key === undefined || body.api_key === null)
      throw ApiError.badRequest('api_key is required');
    const { dto, problems } = validateBody(ApiKeyTokenRequestDto, body, false);
    if (problems.length > 0) throw ApiError.badRequest(problems[0]);
    return this.tokens.exchange(dto.api_key);
  }
}
