import { Code, Text } from '@mantine/core';
import type { CSSProperties } from 'react';

/** One line, cut with an ellipsis when its box is narrower. */
const ONE_LINE: CSSProperties = {
  display: 'inline-block',
  maxWidth: '100%',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
  verticalAlign: 'bottom',
};

/**
 * An identifier (a webhook-id, an import id) on one line: cut with an ellipsis when its box is
 * narrower, the whole value in its `title` (and in the page's text, for copying and search).
 */
export function OneLineCode({ value }: { value: string }) {
  return (
    <Code fz="xs" title={value} style={ONE_LINE}>
      {value}
    </Code>
  );
}

/**
 * A value that must not break at its hyphens (an email address) in the surrounding text's
 * style: on one line, cut with an ellipsis when its box is narrower, the whole value in its
 * `title`.
 */
export function OneLineText({ value }: { value: string }) {
  return (
    <Text span inherit title={value} style={ONE_LINE}>
      {value}
    </Text>
  );
}
