import { javascript } from '@codemirror/lang-javascript';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { setDiagnostics, type Diagnostic } from '@codemirror/lint';
import type { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import CodeEditor from '../../../components/ui/code-editor';

/** A place in the code an error names: 1-based line and column (null: the whole line). */
export interface CodeMark {
  line: number;
  column: number | null;
  message: string;
}

const EXTENSIONS = [javascript(), syntaxHighlighting(defaultHighlightStyle, { fallback: true })];

/** The diagnostic of `mark` in `view`'s document: its line, from its column on (clamped). */
function diagnostic(view: EditorView, mark: CodeMark): Diagnostic | null {
  const doc = view.state.doc;
  if (mark.line < 1 || mark.line > doc.lines) return null;
  const line = doc.line(mark.line);
  const from = Math.min(line.from + Math.max((mark.column ?? 1) - 1, 0), line.to);
  return {
    from,
    to: from < line.to ? line.to : from,
    severity: 'error',
    message: mark.message,
  };
}

/**
 * The transformation's JavaScript editor (loaded on demand, with CodeMirror): syntax
 * highlighting, and the line an error names underlined with its message (`mark`). Read only for
 * viewers.
 */
export default function TransformationEditor({
  value,
  onChange,
  ariaLabel,
  describedBy,
  mark,
  readOnly,
  onSubmit,
}: {
  value: string;
  onChange: (value: string) => void;
  ariaLabel: string;
  describedBy?: string;
  mark: CodeMark | null;
  readOnly: boolean;
  onSubmit?: () => void;
}) {
  const view = useRef<EditorView | null>(null);
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const found = mark ? diagnostic(editor, mark) : null;
    editor.dispatch(setDiagnostics(editor.state, found ? [found] : []));
  }, [mark]);

  return (
    <CodeEditor
      value={value}
      onChange={onChange}
      ariaLabel={ariaLabel}
      describedBy={describedBy}
      invalid={mark !== null}
      readOnly={readOnly}
      onSubmit={onSubmit}
      extensions={EXTENSIONS}
      viewRef={view}
      minHeight="12em"
      testId="transformation-editor"
    />
  );
}
