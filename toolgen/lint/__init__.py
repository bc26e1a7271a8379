"""`toolgen lint`: annotation correctness and schema quality of MCP tools.

Rules live in `toolgen.lint.rules` (one module per category) and register themselves in
`toolgen.lint.registry`, which imports none of them: this package imports them all.
`toolgen.lint.engine` runs the selected rules over a `ToolSet`, applies the configuration
(`toolgen.lint.config`) and the suppressions written in specs (`toolgen.lint.suppress`);
`toolgen.report` renders the findings. Nothing here imports jinja2 or
datamodel-code-generator.
"""

from toolgen.lint import rules as rules  # registers every rule
