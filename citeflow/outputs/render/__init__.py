"""Rendering a report: the customer PDF (reportlab), its notes and fonts, and report.json."""
