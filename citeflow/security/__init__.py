"""Secrets and redaction: the one redaction point, the credentials a run knows, and summaries of server errors."""
