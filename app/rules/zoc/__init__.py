"""The `zoc` ruleset: Zone of Control, sections 8-8.2 (seed 000)."""
