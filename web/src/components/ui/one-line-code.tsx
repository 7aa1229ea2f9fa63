import { Code } from '@mantine/core';

/**
 * An identifier (a webhook-id) on one line: cut with an ellipsis when its box is narrower, the
 * whole value in its `title` (and in the page's text, for copying and search).
 */
export function OneLineCode({ value }: { value: string }) {
  return (
    <Code
      fz="xs"
      title={value}
      style={{
        display: 'inline-block',
        maxWidth: '100%',
        overflow: 'hidden',
        textOverflow: 'ellipsis',
        whiteSpace: 'nowrap',
        verticalAlign: 'bottom',
      }}
    >
      {value}
    </Code>
  );
}
