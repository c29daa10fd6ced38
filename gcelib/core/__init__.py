"""Shared helpers of gcelib: seeding, devices, configs, run outputs, claims, plotting, progress, testing, papers and reproduction."""
