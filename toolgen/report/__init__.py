"""What lint and diff report, and how: findings with severities (`findings`), their
configuration in `[tool.toolgen.<section>]` of pyproject.toml (`config`), and the output
formats text, json, sarif and github (`formats`)."""
