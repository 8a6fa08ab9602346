"""Draftroom's domain: pipelines, agents, the supervisor loop and services. No Streamlit here."""
