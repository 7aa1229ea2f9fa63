/**
 * The users feature's face (docs/architecture.md#folders): what other features import from
 * `src/users/`.
 */
export * from './dashboard-roles.constants';
export * from './dashboard-user.entity';
export * from './sessions.service';
export * from './user-limits.constants';
export * from './users.module';
export * from './users.service';
