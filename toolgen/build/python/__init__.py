"""The Python target: pydantic models, the server stub, the typed client, the package."""
