"""The Iceberg REST catalog protocol served for a team's `iceberg` catalogs (docs/iceberg.md, "REST catalog")."""
