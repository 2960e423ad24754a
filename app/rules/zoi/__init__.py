"""The `zoi` ruleset: La Bataille rule 14, Zone d'Influence (seed 002)."""
