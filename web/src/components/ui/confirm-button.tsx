import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { ErrorText } from './error-text';

/**
 * A button that asks first: a dialog says what will happen; its confirm button runs
 * `onConfirm` (a promise: the dialog stays open with the error in words when it fails).
 */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  pending,
  error,
  color = 'red',
  buttonProps,
  leftSection,
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  pending: boolean;
  error: unknown;
  color?: string;
  buttonProps?: ButtonProps & { 'aria-label'?: string };
  leftSection?: ReactNode;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button
        variant="light"
        color={color}
        onClick={open}
        leftSection={leftSection}
        {...buttonProps}
      >
        {label}
      </Button>
      <Modal
        opened={opened}
        onClose={close}
        title={title}
        centered
        // The scroll lock injects a <style> without the page's CSP nonce: refused, a console error.
        lockScroll={false}
      >
        <Stack gap="md">
          <Text size="sm">{message}</Text>
          {error ? <ErrorText error={error} /> : null}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color={color}
              loading={pending}
              onClick={() => {
                onConfirm().then(close, () => undefined);
              }}
            >
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
