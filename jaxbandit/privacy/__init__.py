"""Privacy accounting: the GDP calculus (`gdp`) and the guarantees of private Thompson sampling (`thompson`)."""
from jaxbandit.privacy import gdp, thompson  # noqa: F401
from jaxbandit.privacy.gdp import compose, delta, epsilon, eta_for, rdp_epsilon  # noqa: F401
