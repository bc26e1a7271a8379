"""toolgen's version (`pyproject.toml` reads it, hatch) and where its documentation is published
(the `site_url` of mkdocs.yml; a test keeps the two in step), in one place each."""

__version__ = "0.1.0"

DOCS_URL = "https://toolgen.github.io/toolgen/"
