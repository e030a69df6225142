"""Privacy accounting: privacy profiles of every notion with their conversions and composition (`profiles`), the
GDP calculus (`gdp`: δ(ε; μ), ε(δ; μ), μ(ε, δ), composition, jittable and
differentiable), composition of (ε, δ)-DP mechanisms (`composition`), the guarantees of private Thompson sampling
(`thompson`) and of ReportNoisyMax (`noisy_max`), and the one interface every private component states its claim through (`accountants`: `Accountant`,
`Guarantee`, `Budget`). The run-time mechanisms the claims are about are `jaxbandit.mechanisms`; the audits that
test them, `jaxbandit.audit`."""
from jaxbandit.accounting import accountants, composition, gdp, noisy_max, profiles, thompson
from jaxbandit.accounting.accountants import Accountant, Budget, Guarantee

__all__ = ["accountants", "composition", "gdp", "noisy_max", "profiles", "thompson", "Accountant", "Budget",
           "Guarantee"]
