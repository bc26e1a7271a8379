"""Spec files and published tool definitions → the IR (`ToolSet`).

Sources with positions (`source`, `jsonsource`, `positions`), the spec model (`model`,
`spec-format.schema.json`), discovery of spec sets (`loader`), `$ref` resolution (`resolver`),
published definitions (`published`), MCP protocol facts (`protocol`, `mcp-schema/`), digests,
errors, and the one load pipeline (`pipeline`) every command shares.
"""
