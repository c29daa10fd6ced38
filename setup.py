"""Packaging for gcelib: every setting comes from settings.ini (nbdev 2)."""
from configparser import ConfigParser
from pathlib import Path

from setuptools import find_packages, setup

cfg = ConfigParser(delimiters=["="])
cfg.read(Path(__file__).parent / "settings.ini")
cfg = cfg["DEFAULT"]


def read_requirements(name):
    """Return the requirement lines of a file, without comments and blank lines."""
    lines = (Path(__file__).parent / name).read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    author=cfg["author"],
    author_email=cfg["author_email"],
    license="Apache-2.0",
    url=cfg["git_url"],
    python_requires=f">={cfg['min_python']},<3.{int(cfg['max_python'].split('.')[1]) + 1}",
    packages=find_packages(include=["gcelib", "gcelib.*"]),
    include_package_data=True,
    install_requires=read_requirements("requirements.txt"),
    # dev: tests, oracles and docs; per paper: what its notebooks need beyond the runtime stack
    extras_require={"dev": read_requirements("requirements-dev.txt"), "treegrad": ["shap==0.51.0"]},
    entry_points={"console_scripts": [cfg["console_scripts"]]},
    zip_safe=False,
)
