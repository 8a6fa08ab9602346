"""Once per process, before any page reads the database: bring the schema up to date
(SQLite) or check it (PostgreSQL). Done here, in the script thread, before the in-app worker
starts, so that the worker's own check and the pages' first reads never race to create
tables."""

from __future__ import annotations

import streamlit as st

from db.connect import database_url


@st.cache_resource(show_spinner="Preparing the database…")
def _prepared(url: str) -> None:
    from db.migrate import on_start

    on_start(url)


def prepare_database() -> None:
    """Stop the app with a clear message when the schema is behind the code."""
    try:
        _prepared(database_url())
    except Exception as exc:  # SchemaOutOfDate, or a database that cannot be reached
        st.error(f"The database is not ready: {exc}", icon=":material/database:")
        st.stop()
