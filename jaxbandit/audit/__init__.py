"""Monte-Carlo privacy audits, above the policies: `montecarlo` (Clopper–Pearson lower bounds on ε or μ from many
runs on neighbouring inputs, with held-out event selection, and trade-off curves) and `components` (an audit of
every private component, running its own code, with planted bugs that the audit must flag)."""
from jaxbandit.audit import components, montecarlo
from jaxbandit.audit.montecarlo import Audit, AuditResult, run

__all__ = ["components", "montecarlo", "Audit", "AuditResult", "run"]
