/** A fire time as the schedule's local wall clock with its UTC offset: "2026-03-29 03:00 (UTC+02:00)". */
export function formatFireTime(iso: string): string {
  const offset = iso.length > 19 ? iso.slice(19) : "";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${offset ? ` (UTC${offset})` : ""}`;
}

export function FireTimes({ times, label }: { times: string[]; label: string }) {
  return (
    <ol className="fire-times" aria-label={label}>
      {times.map((t) => (
        <li key={t}>{formatFireTime(t)}</li>
      ))}
    </ol>
  );
}
