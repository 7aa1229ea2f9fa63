import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage, isApiError } from '../../../lib/api-errors';
import { useSignIn } from '../../../lib/auth';

/** A countdown in whole seconds: `[secondsLeft, start(seconds)]`. */
function useCountdown(): [number, (seconds: number) => void] {
  const [deadline, setDeadline] = useState<number | null>(null);
  const [secondsLeft, setSecondsLeft] = useState(0);
  useEffect(() => {
    if (deadline === null) return undefined;
    const timer = window.setInterval(() => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      setSecondsLeft(left);
      if (left === 0) setDeadline(null);
    }, 250);
    return () => window.clearInterval(timer);
  }, [deadline]);
  const start = useCallback((seconds: number) => {
    setDeadline(Date.now() + seconds * 1000);
    setSecondsLeft(seconds);
  }, []);
  return [secondsLeft, start];
}

/**
 * The sign-in form: **Email**, **Password**, **Sign in**. A failure shows the
 * service's message (one generic message for any wrong email or password); after too many
 * attempts (429) the button waits out `Retry-After`.
 */
export function SignInForm() {
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [secondsLeft, startCountdown] = useCountdown();
  const passwordRef = useRef<HTMLInputElement>(null);
  const waiting = secondsLeft > 0;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (signIn.isPending || waiting) return;
    signIn.mutate(
      { email: email.trim(), password },
      {
        onError: (error) => {
          setPassword('');
          passwordRef.current?.focus();
          if (isApiError(error, 429) && error.retryAfterSeconds) {
            startCountdown(error.retryAfterSeconds);
          }
        },
      },
    );
  }

  const error = signIn.error;
  return (
    <form onSubmit={submit}>
      <Stack gap="md">
        {error && (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle aria-hidden />}
            role="alert"
            data-testid="sign-in-error"
          >
            {errorMessage(error)}
            {waiting && ` You can try again in ${secondsLeft} s.`}
          </Alert>
        )}
        <TextInput
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          inputMode="email"
          spellCheck={false}
          required
          // Both fields are required; without the asterisk each label is exactly its name.
          withAsterisk={false}
          autoFocus
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
        />
        <PasswordInput
          ref={passwordRef}
          label="Password"
          name="password"
          autoComplete="current-password"
          required
          withAsterisk={false}
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          // Named without "password", so the field stays the only control labelled Password.
          visibilityToggleButtonProps={{ 'aria-label': 'Show the characters typed' }}
        />
        <Button type="submit" fullWidth loading={signIn.isPending} disabled={waiting} mt="xs">
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
