import { FieldErrors } from "@/components/FieldErrors";
import { jsonFieldProblems, type ConfigField, type FormValues, type MapRow } from "@/features/catalogs/hooks/use-config-form";

type Props = {
  fields: ConfigField[];
  values: FormValues;
  onChange: (name: string, value: FormValues[string]) => void;
  errors: (field: string) => string[];
  secretsSet: Set<string>; // secrets stored on the server (edit only)
  replacing: Set<string>; // stored secrets the user chose to replace
  onReplace: (name: string, replace: boolean) => void;
};

/** The inputs of one catalog type, rendered from its JSON Schema. */
export function ConfigurationFields({ fields, values, onChange, errors, secretsSet, replacing, onReplace }: Props) {
  return (
    <>
      {fields.map((f) => {
        const id = `cfg-${f.name}`;
        const errs = errors(f.name);
        const described = [f.description ? `${id}-help` : "", errs.length ? `${id}-errors` : ""].filter(Boolean).join(" ") || undefined;
        const storedSecret = f.isSecret && secretsSet.has(f.name) && !replacing.has(f.name);
        const common = {
          id,
          "aria-describedby": described,
          "aria-invalid": errs.length > 0 || undefined,
        };
        let control;
        if (storedSecret) {
          control = (
            <div className="secret-set" id={id}>
              <span className="badge ok" data-testid={`secret-set-${f.name}`}>set</span>
              <span className="muted">stored encrypted; never shown</span>
              <button type="button" className="btn small" onClick={() => onReplace(f.name, true)} aria-label={`Replace ${f.label}`}>
                Replace
              </button>
            </div>
          );
        } else if (f.kind === "select") {
          control = (
            <select {...common} value={String(values[f.name] ?? "")} required={f.required} onChange={(e) => onChange(f.name, e.target.value)}>
              {!f.required && <option value="">(default)</option>}
              {f.options?.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          );
        } else if (f.kind === "checkbox") {
          control = <input {...common} type="checkbox" checked={values[f.name] === true} onChange={(e) => onChange(f.name, e.target.checked)} />;
        } else if (f.kind === "map") {
          control = (
            <MapEditor
              id={id}
              label={f.label}
              rows={(values[f.name] as MapRow[]) ?? []}
              secret={!!f.secretValues}
              onChange={(rows) => onChange(f.name, rows)}
            />
          );
        } else if (f.kind === "json") {
          control = (
            <JsonEditor
              common={common}
              field={f}
              text={String(values[f.name] ?? "")}
              onChange={(text) => onChange(f.name, text)}
            />
          );
        } else {
          control = (
            <input
              {...common}
              type={f.kind === "secret" ? "password" : f.kind === "number" ? "number" : "text"}
              autoComplete={f.kind === "secret" ? "new-password" : "off"}
              spellCheck={false}
              value={String(values[f.name] ?? "")}
              required={f.required && !(f.isSecret && secretsSet.has(f.name))}
              maxLength={f.maxLength}
              placeholder={f.defaultValue !== undefined && f.defaultValue !== null && typeof f.defaultValue !== "object" ? String(f.defaultValue) : undefined}
              onChange={(e) => onChange(f.name, e.target.value)}
            />
          );
        }
        return (
          <div className={`field ${f.kind === "checkbox" ? "field-inline" : ""}`} key={f.name}>
            <label htmlFor={id}>
              {f.label}
              {f.required && <span className="req" aria-hidden="true"> *</span>}
              <code className="field-key" aria-hidden="true">{f.name}</code>
              {f.isSecret && <span className="muted"> (secret)</span>}
            </label>
            {control}
            {f.isSecret && secretsSet.has(f.name) && replacing.has(f.name) && (
              <button type="button" className="btn link" onClick={() => onReplace(f.name, false)}>
                Keep the stored value
              </button>
            )}
            {f.description && (
              <p className="help" id={`${id}-help`}>
                {f.description}
              </p>
            )}
            <FieldErrors id={`${id}-errors`} messages={errs} />
          </div>
        );
      })}
    </>
  );
}

/** A textarea for a structured setting (e.g. a stream catalog's declared `tables`), checked against the
 * setting's JSON Schema as the user types; the API checks it again on save. */
function JsonEditor({ common, field, text, onChange }: { common: Record<string, unknown>; field: ConfigField; text: string; onChange: (text: string) => void }) {
  const problems = jsonFieldProblems(field, text);
  const problemsId = `${String(common.id)}-json-problems`;
  const format = () => {
    try {
      onChange(JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      // not JSON yet: the problem is already listed
    }
  };
  const describedBy = [common["aria-describedby"], problems.length ? problemsId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="json-editor">
      <textarea
        {...common}
        aria-describedby={describedBy}
        aria-invalid={problems.length > 0 || common["aria-invalid"] ? true : undefined}
        className="mono"
        rows={Math.min(20, Math.max(4, text.split("\n").length + 1))}
        spellCheck={false}
        value={text}
        placeholder={field.name === "tables" ? '{"default.orders": {"columns": [{"name": "id", "type": "bigint"}, {"name": "ts", "type": "timestamp"}], "event-time": "ts"}}' : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <div className="json-editor-bar">
        <button type="button" className="btn small" onClick={format} disabled={problems.some((p) => p.startsWith("not valid JSON"))}>
          Format
        </button>
        {text.trim() !== "" && problems.length === 0 && <span className="badge ok" data-testid={`json-ok-${field.name}`}>valid</span>}
      </div>
      {problems.length > 0 && <FieldErrors id={problemsId} messages={problems.slice(0, 8)} />}
    </div>
  );
}

function MapEditor({ id, label, rows, secret, onChange }: { id: string; label: string; rows: MapRow[]; secret: boolean; onChange: (rows: MapRow[]) => void }) {
  const set = (i: number, patch: Partial<MapRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="map-editor" id={id} role="group" aria-label={label}>
      {rows.length === 0 && <p className="muted">None.</p>}
      {rows.map((r, i) =>
        r.stored ? (
          <div className="map-row stored" key={i}>
            <span className="mono">{r.key}</span>
            {r.removed ? <span className="muted">will be removed</span> : <span className="badge ok">set</span>}
            <button type="button" className="btn small" onClick={() => set(i, { removed: !r.removed })}>
              {r.removed ? "Keep" : "Remove"}
            </button>
          </div>
        ) : (
        <div className="map-row" key={i}>
          <input aria-label={`${label} name ${i + 1}`} placeholder="name" value={r.key} spellCheck={false} onChange={(e) => set(i, { key: e.target.value })} />
          <input
            aria-label={`${label} value ${i + 1}`}
            placeholder="value"
            type={secret ? "password" : "text"}
            autoComplete={secret ? "new-password" : "off"}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button type="button" className="btn small" aria-label={`Remove ${label} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ✕
          </button>
        </div>
        ),
      )}
      <button type="button" className="btn small" onClick={() => onChange([...rows, { key: "", value: "" }])}>
        Add entry
      </button>
    </div>
  );
}
