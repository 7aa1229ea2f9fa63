import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '../config/app-config';
import { CampaignsModule } from '../campaigns';
import { ApiKeysModule } from './api-keys.module';
import { AuthController } from './auth.controller';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerAuthenticator } from './bearer-authenticator.service';
import { CampaignAccessGuard } from './campaign-access.guard';
import { jwtSigningKey } from './jwt-signing-key';
import { JwtStrategy } from './jwt.strategy';
import { TokenService } from './token.service';

/**
 * Authentication and campaign authorisation over HTTP (docs/api.md#authentication): the token
 * exchange, the bearer guard (registered globally by the HTTP app) and
 * {@link CampaignAccessGuard} for campaign routes. The keys themselves are {@link ApiKeysModule}'s.
 */
@Module({
  imports: [
    ApiKeysModule,
    CampaignsModule,
    PassportModule,
    JwtModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        secret: jwtSigningKey(config.jwtSecret),
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [TokenService, JwtStrategy, CampaignAccessGuard, BearerAuthGuard, BearerAuthenticator],
  exports: [
    ApiKeysModule,
    CampaignAccessGuard,
    BearerAuthGuard,
    BearerAuthenticator,
    CampaignsModule,
  ],
})
export class AuthModule {}
