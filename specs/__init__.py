"""Shipped hardware spec data (YAML + JSON Schema); loaded by cuteverify.specs."""
