"""Test support: a tiny ruleset and a throwaway PostgreSQL cluster."""
