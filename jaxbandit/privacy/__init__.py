"""Privacy accounting: the GDP calculus (`gdp`), the guarantees of private Thompson sampling (`thompson`), private
continual-release counters with their accounting (`counters`), composition of ε-DP mechanisms (`composition`) and
the perturbations of private follow-the-perturbed-leader with their privacy conditions (`ftpl`, seed 003)."""
from jaxbandit.privacy import composition, counters, ftpl, gdp, thompson
from jaxbandit.privacy.gdp import compose, delta, epsilon, eta_for, rdp_epsilon

__all__ = ["composition", "counters", "ftpl", "gdp", "thompson", "compose", "delta", "epsilon", "eta_for", "rdp_epsilon"]
