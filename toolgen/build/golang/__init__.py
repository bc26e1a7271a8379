"""The Go target: a spec set as a package for the official Go MCP SDK."""
