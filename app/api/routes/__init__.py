"""One small router per resource."""
