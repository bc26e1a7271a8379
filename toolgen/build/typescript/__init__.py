"""The TypeScript target: a spec set as a module for the official TypeScript MCP SDK."""
