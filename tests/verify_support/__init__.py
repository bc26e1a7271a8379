"""A spec set and a hand-written stdio MCP server (with switchable defects) for verify tests."""
