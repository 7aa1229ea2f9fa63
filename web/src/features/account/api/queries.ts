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
