"""Services of the jobs app (writes): jobs, runs, execution, interactive SQL."""
