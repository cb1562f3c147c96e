"""The Spark runtime of Lakeport. Runs inside a Spark driver, so nothing here imports Django."""
