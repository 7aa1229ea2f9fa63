import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's notification URL and the signing secret of its operational messages
 * (docs/webhooks.md#operational-messages): at most one row per account, deleted with it.
 */
export class AccountNotification1795870000000 implements MigrationInterface {
  name = 'AccountNotification1795870000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "account_notification" ("account_id" integer NOT NULL, "url" character varying(2048) NOT NULL, "secret_encrypted" text NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c67754ac85ed314854bcd993d03" PRIMARY KEY ("account_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "account_notification" ADD CONSTRAINT "fk_account_notification_account" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "account_notification"`);
  }
}
