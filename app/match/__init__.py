"""Match-flow mechanics shared by every ruleset: verifiable dice, clocks, sealed orders.

These modules sit beside the service layer: they may use the clock and the system's random
source (the rules core may not), but each takes them as injected dependencies so that tests
and audits can replay them exactly.
"""
