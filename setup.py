"""Package layout, the one part of the configuration pyproject.toml cannot declare (everything else is there).

The repository's top-level experiments/ folder is installed as the subpackage ``jaxbandit.experiments``, never as
a top-level ``experiments`` package: that name is generic enough to collide with other projects' in
site-packages. pyproject.toml can either discover packages or list them, not discover them and add one from
another folder; discovering jaxbandit's subpackages here keeps new ones installed without editing a list.
"""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["jaxbandit", "jaxbandit.*"]) + ["jaxbandit.experiments"],
      package_dir={"jaxbandit.experiments": "experiments"},
      package_data={"jaxbandit.experiments": ["*.json"]})  # the recorded results that notebooks read
