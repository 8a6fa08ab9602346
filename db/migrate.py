"""Bring the database schema up to date."""

from __future__ import annotations

from sqlmodel import SQLModel

from db.session import get_engine


def migrate() -> None:
    SQLModel.metadata.create_all(get_engine())
