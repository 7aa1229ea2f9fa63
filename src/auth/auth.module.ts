import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ApiKey } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { AuthController } from './auth.controller';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerAuthenticator } from './bearer-authenticator';
import { CampaignAccessGuard } from './campaign-access.guard';
import { jwtSigningKey } from './jwt-signing-key';
import { JwtStrategy } from './jwt.strategy';
import { TokenService } from './token.service';

/**
 * Authentication and campaign authorisation (docs/api.md#authentication): API keys, the token
 * exchange, the bearer guard (registered globally by the HTTP app) and
 * {@link CampaignAccessGuard} for campaign routes.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ApiKey]),
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
  providers: [
    ApiKeysService,
    TokenService,
    JwtStrategy,
    CampaignAccessGuard,
    BearerAuthGuard,
    BearerAuthenticator,
  ],
  exports: [
    ApiKeysService,
    CampaignAccessGuard,
    BearerAuthGuard,
    BearerAuthenticator,
    CampaignsModule,
  ],
})
export class AuthModule {}
