import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useEffect, useState } from "react";

import { jobListQuery, type Job, type JobList } from "@/lib/queries/jobs";

const draftKey = (team: string) => `lakeport.sql-draft.${team}`;

/** A name for a job saved from a new script: query_YYYYMMDD_HHMMSS (local time). */
export function defaultJobName(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, "0");
  return `query_${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}_${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export type EditorScript = {
  sqlText: string;
  setSqlText: (sql: string) => void;
  /** The saved job the editor holds (its id), or null for a new script. */
  jobId: number | null;
  setJobId: (id: number | null) => void;
  jobName: string;
  setJobName: (name: string) => void;
  /** Where unqualified names resolve ("" for none); validation, Preview, Live and Run all send it. */
  defaultCatalog: string;
  setDefaultCatalog: (catalog: string) => void;
  /** The team's jobs (the picker), shared with the jobs pages (lib/queries/jobs). */
  jobs: UseQueryResult<JobList>;
  /** The job the editor holds, once the list has it. */
  heldJob: Job | undefined;
  /** Forget the held job and start an empty script. */
  clear: () => void;
};

/**
 * The script being edited and the job it belongs to: starts from `?sql=`, else the team's draft (kept in
 * localStorage as you type); opening `?job=<id>` loads that job's script, name and default catalog.
 */
export function useEditorScript(team: string, jobParam: string | null, sqlParam: string | null): EditorScript {
  const [sqlText, setSqlText] = useState(() => sqlParam ?? localStorage.getItem(draftKey(team)) ?? "");
  const [defaultCatalog, setDefaultCatalog] = useState("");
  const [jobId, setJobId] = useState<number | null>(jobParam ? Number(jobParam) : null);
  const [jobName, setJobName] = useState(defaultJobName);
  const jobs = useQuery(jobListQuery(team));

  useEffect(() => {
    localStorage.setItem(draftKey(team), sqlText);
  }, [team, sqlText]);

  // opening a saved job loads its script, name and default catalog: whenever the ?job= parameter or the list
  // changes (adjusted while rendering, React's way for state that follows other data, instead of in an effect)
  const [loadedFrom, setLoadedFrom] = useState<{ jobParam: string | null; list: JobList | undefined } | null>(null);
  if (!loadedFrom || loadedFrom.jobParam !== jobParam || loadedFrom.list !== jobs.data) {
    setLoadedFrom({ jobParam, list: jobs.data });
    const job = jobParam ? jobs.data?.results.find((j) => j.id === Number(jobParam)) : undefined;
    if (job) {
      setJobId(job.id);
      setJobName(job.name);
      setSqlText(job.sql);
      setDefaultCatalog(job.default_catalog);
    }
  }

  const clear = () => {
    setJobId(null);
    setJobName(defaultJobName());
    setSqlText("");
  };

  const heldJob = jobs.data?.results.find((j) => j.id === jobId);
  return { sqlText, setSqlText, jobId, setJobId, jobName, setJobName, defaultCatalog, setDefaultCatalog, jobs, heldJob, clear };
}
