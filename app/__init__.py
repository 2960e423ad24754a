"""Referee: a rules referee for tabletop wargames, served over HTTP."""

__version__ = "0.1.0"
