.PHONY: run test bench lint

run:  ## install what is missing, migrate, create the demo team, serve on :8000 with a worker
	bash platform/scripts/run.sh

test:  ## the whole suite against real PostgreSQL, Redis, MariaDB, Hive Metastore and Spark
	bash platform/scripts/test.sh

bench:  ## benchmarks with side-by-side ratios (not part of make test)
	bash platform/scripts/bench.sh

lint:
	.venv/bin/ruff check .
