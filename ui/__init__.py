"""Presentation helpers shared by the Streamlit pages (figures, components, the in-app worker)."""
