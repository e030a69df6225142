"""Privacy accounting and checking: the GDP calculus (`gdp`), the guarantees of private Thompson sampling
(`thompson`), private continual-release counters with their accounting (`counters`), composition of ε-DP mechanisms
(`composition`), the perturbations of private follow-the-perturbed-leader with their privacy conditions (`ftpl`,
seed 003), seed 004's private truncated means (`robust`), floating-point-safe Laplace releases (`noise`), and
Monte-Carlo privacy audits (`audit`) with an audit and planted bugs for every private component (`components`,
imported on use: ``from jaxbandit.privacy import components``)."""
from jaxbandit.privacy import audit, composition, counters, ftpl, gdp, noise, thompson
from jaxbandit.privacy.gdp import compose, delta, epsilon, eta_for, rdp_epsilon

__all__ = ["audit", "composition", "counters", "ftpl", "gdp", "noise", "thompson", "compose", "delta", "epsilon",
           "eta_for", "rdp_epsilon"]
