import type { components } from '../../../api/schema';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The account's notification URL (docs/webhooks.md#operational-messages): never its secret. */
export type NotificationSetting = components['schemas']['NotificationSetting'];
/** `PUT /account/notifications`: the setting, with `secret` (shown once) when the URL is new. */
export type UpdatedNotificationSetting = components['schemas']['UpdatedNotificationSetting'];

export const notificationKeys = {
  setting: ['account', 'notifications'] as const,
};

/** Where the account's operational messages go (`url` null: nowhere). */
export function useNotificationSetting() {
  return useQuery({
    queryKey: notificationKeys.setting,
    queryFn: async ({ signal }): Promise<NotificationSetting> =>
      (await api.GET('/dashboard/api/account/notifications', { signal }))
        .data as NotificationSetting,
  });
}

/**
 * Sets the notification URL (a string) or removes it (null). The cached setting gets the
 * answer's URL only: the secret stays in the mutation's result, for the page to show once.
 */
export function useUpdateNotificationSetting() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (url: string | null): Promise<UpdatedNotificationSetting> =>
      (await api.PUT('/dashboard/api/account/notifications', { body: { url } }))
        .data as UpdatedNotificationSetting,
    onSuccess: (answer) =>
      queryClient.setQueryData<NotificationSetting>(notificationKeys.setting, { url: answer.url }),
  });
}

/** The origins allowed to frame the account's portal (docs/dashboard.md#embedding-the-portal). */
export type PortalOrigins = components['schemas']['PortalOrigins'];

export const portalOriginKeys = {
  origins: ['account', 'portal-origins'] as const,
};

/** The account's portal origins, as the service stores them. */
export function usePortalOrigins() {
  return useQuery({
    queryKey: portalOriginKeys.origins,
    queryFn: async ({ signal }): Promise<PortalOrigins> =>
      (await api.GET('/dashboard/api/account/portal-origins', { signal })).data as PortalOrigins,
  });
}

/**
 * Replaces the account's portal origins with a whole list (an admin's; recorded in the audit
 * log as `account.portal_origins_update`). The cache gets the list as the service answers it
 * (normalised, duplicates dropped).
 */
export function useSetPortalOrigins() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (origins: string[]): Promise<PortalOrigins> =>
      (await api.PUT('/dashboard/api/account/portal-origins', { body: { origins } }))
        .data as PortalOrigins,
    onSuccess: (answer) =>
      queryClient.setQueryData<PortalOrigins>(portalOriginKeys.origins, answer),
  });
}
