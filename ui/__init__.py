"""Presentation helpers shared by the Streamlit pages (figures, components, the in-app worker)."""

from ui._navigation import leave_legacy_pages_mode

leave_legacy_pages_mode()
