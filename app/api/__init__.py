"""The HTTP API: FastAPI routers, problem+json errors, auth and precondition headers."""
