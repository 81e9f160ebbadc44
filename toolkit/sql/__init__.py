"""SQL-expression text in (`parse`, on sqlglot) and out (`to_sql`), with the one table of
function names and the one table of type names both directions share."""
