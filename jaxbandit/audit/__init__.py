"""Monte-Carlo privacy audits, above the policies: `montecarlo` (Clopper–Pearson lower bounds on ε or μ from many
runs on neighbouring inputs, with held-out event selection, and trade-off curves); the audits of the mechanisms
(`mechanisms`) and of the private policies (`policies`), each running the component's own code, with planted bugs
that the audit must flag; and their registry (`components`: ``make``, ``names``, ``for_component``)."""
from jaxbandit.audit import components, mechanisms, montecarlo, policies
from jaxbandit.audit.montecarlo import Audit, AuditResult, run

__all__ = ["components", "mechanisms", "montecarlo", "policies", "Audit", "AuditResult", "run"]
