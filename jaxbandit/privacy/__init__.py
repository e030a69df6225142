"""Privacy accounting: the GDP calculus (`gdp`) and the guarantees of private Thompson sampling (`thompson`)."""
from jaxbandit.privacy import gdp, thompson
from jaxbandit.privacy.gdp import compose, delta, epsilon, eta_for, rdp_epsilon

__all__ = ["gdp", "thompson", "compose", "delta", "epsilon", "eta_for", "rdp_epsilon"]
