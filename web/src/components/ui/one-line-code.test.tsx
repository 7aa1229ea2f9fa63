import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../testing/render';
import { OneLineCode, OneLineText } from './one-line-code';

describe('one-line values', () => {
  it('keeps a hyphenated email on one line, cut with an ellipsis, the whole address in its title', () => {
    renderWithProviders(<OneLineText value="mary-jane.o-neil@example-mail.com" />);
    const email = screen.getByText('mary-jane.o-neil@example-mail.com');
    expect(email).toHaveAttribute('title', 'mary-jane.o-neil@example-mail.com');
    expect(email).toHaveStyle({ whiteSpace: 'nowrap', textOverflow: 'ellipsis', maxWidth: '100%' });
  });

  it('keeps an import id on one line in code, the whole id in its title', () => {
    const id = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b';
    renderWithProviders(<OneLineCode value={id} />);
    const code = screen.getByText(id);
    expect(code.tagName).toBe('CODE');
    expect(code).toHaveAttribute('title', id);
    expect(code).toHaveStyle({ whiteSpace: 'nowrap' });
  });
});
