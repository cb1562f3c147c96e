import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionSource } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { keywordCompletionSource, sql } from "@codemirror/lang-sql";
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { EditorState, Prec } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder,
} from "@codemirror/view";
import { useEffect, useLayoutEffect, useRef } from "react";

import { SparkSQL } from "@/features/sql-editor/hooks/spark-dialect";

type Props = {
  value: string;
  onChange: (value: string) => void;
  diagnostics: Diagnostic[];
  completion: CompletionSource;
  onPreview?: () => void;
  onRun?: () => void;
  readOnly?: boolean;
};

/** CodeMirror 6 with Spark SQL highlighting, keyword + metadata completion and validation markers. */
export function SqlEditor({ value, onChange, diagnostics, completion, onPreview, onRun, readOnly }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // the editor is created once; callbacks are read through refs so they stay current
  const handlers = useRef({ onChange, onPreview, onRun, completion });
  useLayoutEffect(() => {
    handlers.current = { onChange, onPreview, onRun, completion };
  });

  useEffect(() => {
    const state = EditorState.create({
      doc: value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        bracketMatching(),
        closeBrackets(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        sql({ dialect: SparkSQL, upperCaseKeywords: true }),
        autocompletion({
          override: [
            keywordCompletionSource(SparkSQL, true),
            (ctx) => handlers.current.completion(ctx),
          ],
          activateOnTypingDelay: 150,
        }),
        lintGutter(),
        placeholder("SELECT * FROM catalog.database.table LIMIT 100"),
        EditorView.lineWrapping,
        EditorState.readOnly.of(!!readOnly),
        EditorView.contentAttributes.of({ "aria-label": "SQL editor", "data-testid": "sql-editor-content" }),
        Prec.highest(
          keymap.of([
            { key: "Mod-Enter", run: () => (handlers.current.onPreview?.(), true) },
            { key: "Shift-Mod-Enter", run: () => (handlers.current.onRun?.(), true) },
          ]),
        ),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, ...lintKeymap, indentWithTab]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) handlers.current.onChange(u.state.doc.toString());
        }),
      ],
    });
    const v = new EditorView({ state, parent: host.current! });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [readOnly]);

  // an outside change (a job opened, a link) replaces the document
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const len = v.state.doc.length;
    const safe = diagnostics
      .map((d) => ({ ...d, from: Math.min(d.from, len), to: Math.min(Math.max(d.to, d.from), len) }))
      .filter((d) => d.from <= d.to);
    v.dispatch(setDiagnostics(v.state, safe));
  }, [diagnostics]);

  return <div className="sql-editor" ref={host} data-testid="sql-editor" />;
}
