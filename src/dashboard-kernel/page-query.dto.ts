import { IsOptional, IsString } from 'class-validator';

/**
 * `limit` and `cursor` of a keyset-paged list as the client wrote them (strings: each route
 * reads them itself); unknown or repeated parameters are refused.
 */
export class PageQueryDto {
  @IsOptional()
  @IsString()
  limit?: string;

  @IsOptional()
  @IsString()
  cursor?: string;
}
