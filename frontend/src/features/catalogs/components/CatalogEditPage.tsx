import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { FieldErrors } from "@/components/FieldErrors";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useCreateCatalog } from "@/features/catalogs/api/create-catalog";
import { useCatalogTypes } from "@/features/catalogs/api/get-catalog-types";
import { useTestConnection } from "@/features/catalogs/api/test-connection";
import { useUpdateCatalog } from "@/features/catalogs/api/update-catalog";
import { ConfigurationFields } from "@/features/catalogs/components/ConfigurationFields";
import { ConnectionResultView } from "@/features/catalogs/components/ConnectionResultView";
import { fieldsOf, initialValues, toConfiguration, type FormValues } from "@/features/catalogs/hooks/use-config-form";
import { schemaOf, type Catalog, type CatalogType } from "@/features/catalogs/types";
import { useTeam } from "@/hooks/use-team";
import { ApiError, fieldErrors } from "@/lib/api-client";
import { catalogQuery } from "@/lib/queries/catalogs";

const NAME_PATTERN = "[a-z][a-z0-9_]{0,62}";

/** Create (/catalogs/new) or edit (/catalogs/:name/edit) a catalog; team admins only. */
export function CatalogEditPage() {
  const { name } = useParams();
  const { team, isAdmin } = useTeam();
  const types = useCatalogTypes(team);
  const existing = useQuery(catalogQuery(team, name));

  if (!isAdmin) {
    return (
      <EmptyState title="Team admins only">
        <p>Only a team admin can create or change catalogs.</p>
      </EmptyState>
    );
  }
  if (types.isPending || (name && existing.isPending)) return <Loading />;
  if (types.error) return <ErrorBox error={types.error} title="Could not load catalog types" onRetry={() => types.refetch()} />;
  if (name && existing.error) return <ErrorBox error={existing.error} title="Could not load the catalog" onRetry={() => existing.refetch()} />;
  return (
    <CatalogForm
      key={`${name ?? "new"}-${existing.data?.etag ?? ""}`}
      team={team}
      types={types.data}
      existing={existing.data?.catalog}
      etag={existing.data?.etag ?? null}
    />
  );
}

type FormProps = {
  team: string;
  types: NonNullable<ReturnType<typeof useCatalogTypes>["data"]>;
  existing?: Catalog;
  etag: string | null;
};

function CatalogForm({ team, types, existing, etag }: FormProps) {
  const navigate = useNavigate();
  const isEdit = !!existing;
  const [catalogName, setCatalogName] = useState(existing?.catalog_name ?? "");
  const [catalogType, setCatalogType] = useState(existing?.catalog_type ?? types[0]?.key ?? "");
  const [description, setDescription] = useState(existing?.description ?? "");
  const typeInfo = types.find((t) => t.key === catalogType);
  const fields = useMemo(() => fieldsOf(schemaOf(typeInfo)), [typeInfo]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields, existing?.configuration, existing?.secrets_set));
  const secretsSet = useMemo(() => new Set(existing?.secrets_set ?? []), [existing]);
  const [replacing, setReplacing] = useState<Set<string>>(new Set());
  const create = useCreateCatalog(team);
  const update = useUpdateCatalog(team);
  const test = useTestConnection(team);
  const save = isEdit ? update : create;

  // a new type brings its own fields and defaults (adjusted while rendering, React's way for state that follows
  // other state)
  const [valuesOf, setValuesOf] = useState(fields);
  if (valuesOf !== fields) {
    setValuesOf(fields);
    if (!isEdit) setValues(initialValues(fields));
  }

  const keepSecrets = useMemo(
    () => new Set([...secretsSet].filter((s) => !replacing.has(s))),
    [secretsSet, replacing],
  );
  const configuration = () => toConfiguration(fields, values, keepSecrets);
  // an error answers the values that were sent: once the user edits the form it no longer applies (the deps
  // are the edited values only, so the error itself does not clear it)
  const { reset: resetSave, isError: saveFailed } = save;
  const { reset: resetTest, isError: testFailed } = test;
  useEffect(() => {
    if (saveFailed) resetSave();
    if (testFailed) resetTest();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [values, catalogName, catalogType, description]);
  const err = save.error;
  const errorsFor = (field: string) => [...fieldErrors(err, "configuration", field), ...fieldErrors(test.error, "configuration", field)];
  // errors about the configuration as a whole (e.g. "set metastore-uris or hive-conf-dir")
  const formErrors = [
    ...fieldErrors(err, "configuration"),
    ...fieldErrors(err, "configuration", "non_field_errors"),
    ...fieldErrors(err, "configuration", "__root__"),
    ...fieldErrors(err, "non_field_errors"),
    ...fieldErrors(test.error, "configuration"),
    ...fieldErrors(test.error, "configuration", "non_field_errors"),
  ];
  const stale = err instanceof ApiError && err.status === 412;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // the select offers only the keys catalog-types/ listed
    const body = { catalog_type: catalogType as CatalogType, description, configuration: configuration() };
    const done = (c: Catalog) => navigate(`/t/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(c.catalog_name)}`);
    if (isEdit) update.mutate({ name: existing.catalog_name, input: body, ifMatch: etag ?? `"${existing.version}"` }, { onSuccess: done });
    else create.mutate({ catalog_name: catalogName, ...body }, { onSuccess: done });
  };

  // kept secrets never reach the browser, so with any kept the saved catalog is what can be tested
  const testsSaved = isEdit && secretsSet.size > 0 && [...secretsSet].some((s) => !replacing.has(s));
  const runTest = () => {
    test.reset();
    if (testsSaved) test.mutate({ name: existing!.catalog_name });
    else test.mutate({ catalog_type: catalogType, configuration: configuration() });
  };

  const listUrl = `/t/${encodeURIComponent(team)}/catalogs`;
  return (
    <>
      <PageHeader title={isEdit ? `Edit ${existing.catalog_name}` : "New catalog"} />
      <form className="card form" onSubmit={submit} noValidate={false} aria-label={isEdit ? "Edit catalog" : "New catalog"}>
        <div className="field">
          <label htmlFor="catalog-name">Name<span className="req" aria-hidden="true"> *</span></label>
          <input
            id="catalog-name"
            value={catalogName}
            onChange={(e) => setCatalogName(e.target.value)}
            required
            disabled={isEdit}
            pattern={NAME_PATTERN}
            maxLength={63}
            spellCheck={false}
            autoComplete="off"
            aria-describedby="catalog-name-help catalog-name-errors"
          />
          <p className="help" id="catalog-name-help">
            {isEdit ? "Catalogs cannot be renamed: jobs refer to them by name." : "Lower-case letters, digits and _; starts with a letter. Used in SQL as catalog.database.table."}
          </p>
          <FieldErrors id="catalog-name-errors" messages={fieldErrors(err, "catalog_name")} />
        </div>
        <div className="field">
          <label htmlFor="catalog-type">Type</label>
          <select id="catalog-type" value={catalogType} disabled={isEdit} onChange={(e) => { setCatalogType(e.target.value); test.reset(); }} aria-describedby="catalog-type-errors">
            {types.map((t) => (
              <option key={t.key} value={t.key}>
                {t.display_name}
              </option>
            ))}
          </select>
          <FieldErrors id="catalog-type-errors" messages={fieldErrors(err, "catalog_type")} />
        </div>
        <div className="field">
          <label htmlFor="catalog-description">Description</label>
          <textarea id="catalog-description" rows={2} value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} aria-describedby="catalog-description-errors" />
          <FieldErrors id="catalog-description-errors" messages={fieldErrors(err, "description")} />
        </div>
        <fieldset className="config-fields">
          <legend>{typeInfo?.display_name ?? catalogType} configuration</legend>
          {fields.length === 0 && <p className="muted">This type has no settings.</p>}
          <ConfigurationFields
            fields={fields}
            values={values}
            onChange={(n, v) => setValues((old) => ({ ...old, [n]: v }))}
            errors={errorsFor}
            secretsSet={secretsSet}
            replacing={replacing}
            onReplace={(n, r) =>
              setReplacing((old) => {
                const next = new Set(old);
                if (r) next.add(n);
                else next.delete(n);
                return next;
              })
            }
          />
        </fieldset>
        {formErrors.length > 0 && <FieldErrors id="form-errors" messages={[...new Set(formErrors)]} />}
        {err && !stale && !(err instanceof ApiError && err.status === 400) && <ErrorBox error={err} title="Could not save" />}
        {err instanceof ApiError && err.status === 400 && <p className="error-text" role="alert">{err.message} See the messages under the fields.</p>}
        {stale && (
          <div className="error-box" role="alert">
            Someone changed this catalog since you opened it. <Link to={`${listUrl}/${encodeURIComponent(existing!.catalog_name)}`}>Reload it</Link> and apply your change again.
          </div>
        )}
        <ConnectionResultView result={test.data} error={test.error instanceof ApiError && test.error.status === 400 ? undefined : test.error} />
        {test.error instanceof ApiError && test.error.status === 400 && <p className="error-text" role="alert">{test.error.message}</p>}
        <div className="form-actions">
          <button type="button" className="btn" onClick={runTest} disabled={test.isPending} aria-describedby={testsSaved ? "test-saved-help" : undefined}>
            {test.isPending ? "Testing…" : testsSaved ? "Test saved connection" : "Test connection"}
          </button>
          {testsSaved && (
            <span className="help" id="test-saved-help">
              Uses the saved settings and stored secrets; save to test your changes.
            </span>
          )}
          <span className="spacer" />
          <Link className="btn" to={isEdit ? `${listUrl}/${encodeURIComponent(existing.catalog_name)}` : listUrl}>
            Cancel
          </Link>
          <button type="submit" className="btn primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : isEdit ? "Save changes" : "Create catalog"}
          </button>
        </div>
      </form>
    </>
  );
}
