import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderText } from '@codemirror/view';
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import { cspNonce } from '../../lib/csp-nonce';

// CodeMirror adds its styles in a <style> element: it carries the page's CSP nonce, or the
// policy refuses it.
const nonce = cspNonce();

/**
 * A code editor (CodeMirror 6), loaded on demand (import it with `lazy`: CodeMirror is its own
 * chunk): monospace, wrapping, with undo. Tab is not taken (it moves focus, as in any field);
 * Mod-Enter calls `onSubmit`. `ariaLabel` is its accessible name; `describedBy` the ids of its
 * description and error. `extensions` (a language, highlighting…) are read once, when it is
 * built; `readOnly` shows the text without letting it change (still focusable and selectable);
 * `viewRef` receives the editor's view, for a caller that marks lines. `minHeight` is a CSS
 * length (4.5em, three lines, when absent).
 */
export default function CodeEditor({
  value,
  onChange,
  ariaLabel,
  describedBy,
  invalid,
  placeholder,
  onSubmit,
  extensions = [],
  readOnly = false,
  viewRef,
  minHeight = '4.5em',
  testId = 'filter-editor',
}: {
  value: string;
  onChange: (value: string) => void;
  ariaLabel: string;
  describedBy?: string;
  invalid?: boolean;
  placeholder?: string;
  onSubmit?: () => void;
  extensions?: Extension[];
  readOnly?: boolean;
  viewRef?: RefObject<EditorView | null>;
  minHeight?: string;
  testId?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onSubmit });
  useLayoutEffect(() => {
    callbacks.current = { onChange, onSubmit };
  });
  const attributes = useRef(new Compartment());
  const contentAttributes = (isInvalid: boolean | undefined) =>
    EditorView.contentAttributes.of({
      'aria-label': ariaLabel,
      'aria-multiline': 'true',
      spellcheck: 'false',
      autocapitalize: 'off',
      autocorrect: 'off',
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      ...(isInvalid ? { 'aria-invalid': 'true' } : {}),
      ...(readOnly ? { 'aria-readonly': 'true' } : {}),
    });

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
          ...(readOnly ? [EditorState.readOnly.of(true)] : []),
          ...extensions,
          history(),
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                callbacks.current.onSubmit?.();
                return true;
              },
            },
            ...defaultKeymap,
            ...historyKeymap,
          ]),
          EditorView.lineWrapping,
          placeholderText(placeholder ?? ''),
          attributes.current.of(contentAttributes(invalid)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.current.onChange(update.state.doc.toString());
          }),
          EditorView.theme({
            '&': {
              fontSize: 'var(--mantine-font-size-sm)',
              border: '1px solid var(--mantine-color-default-border)',
              borderRadius: 'var(--mantine-radius-sm)',
              backgroundColor: 'var(--mantine-color-body)',
            },
            '&.cm-focused': { outline: '2px solid var(--mantine-primary-color-filled)' },
            '&:has([aria-invalid="true"])': { borderColor: 'var(--mantine-color-error)' },
            '.cm-content': {
              fontFamily: 'var(--mantine-font-family-monospace)',
              minHeight,
              padding: '6px 4px',
            },
          }),
        ],
      }),
    });
    view.current = editor;
    if (viewRef) viewRef.current = editor;
    return () => {
      if (viewRef) viewRef.current = null;
      editor.destroy();
    };
    // The editor is built once; the value and `invalid` are pushed in below, the callbacks
    // through the ref.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    view.current?.dispatch({
      effects: attributes.current.reconfigure(contentAttributes(invalid)),
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [invalid]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} data-testid={testId} />;
}
