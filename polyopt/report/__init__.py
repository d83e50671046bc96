"""Dependence reports: the data, and its text, JSON, DOT and HTML forms."""
