"""`toolgen verify`: contract testing of any live MCP server against a spec set.

`revision.verify(toolset, target, options)` is the entry point; `stdio.StdioTarget`
and `http.HttpTarget` reach the server; `checks` lists every check id.
"""
