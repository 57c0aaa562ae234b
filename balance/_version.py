"""The package version, in one place (read by ``balance`` and ``balance.api``)."""

__version__ = "0.1.0"
