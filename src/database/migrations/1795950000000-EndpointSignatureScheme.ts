import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's signature scheme (docs/webhooks.md#signing): `symmetric` (HMAC `v1,` with a
 * `whsec_` secret, what every endpoint used so far) or `asymmetric` (ed25519 `v1a,`), with the
 * `whpk_` public keys of the current and the previous key. An asymmetric endpoint's `whsk_`
 * secret key is stored in `secret_encrypted`, encrypted like a `whsec_` secret. Existing
 * endpoints stay `symmetric`.
 */
export class EndpointSignatureScheme1795950000000 implements MigrationInterface {
  name = 'EndpointSignatureScheme1795950000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "signature_scheme" character varying(16) NOT NULL DEFAULT 'symmetric'`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "public_key" text`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "previous_public_key" text`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_signature_scheme" CHECK ("signature_scheme" IN ('symmetric', 'asymmetric') AND ("signature_scheme" = 'asymmetric') = ("public_key" IS NOT NULL))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_signature_scheme"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "previous_public_key"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "public_key"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "signature_scheme"`);
  }
}
