"""Persistence: SQLModel tables and the database engine."""
