"""Privacy accounting: the GDP calculus (`gdp`), the guarantees of private Thompson sampling (`thompson`), private
continual-release counters with their accounting (`counters`) and composition of ε-DP mechanisms (`composition`)."""
from jaxbandit.privacy import composition, counters, gdp, thompson
from jaxbandit.privacy.gdp import compose, delta, epsilon, eta_for, rdp_epsilon

__all__ = ["composition", "counters", "gdp", "thompson", "compose", "delta", "epsilon", "eta_for", "rdp_epsilon"]
