"""What lint and diff report, and how: findings with severities (`findings`), their
configuration in `[tool.toolgen.<section>]` of pyproject.toml (`config`), the output
formats text, json, sarif and github (`formats`), and located errors as a terminal shows
them, with a source excerpt and colour (`terminal`)."""
