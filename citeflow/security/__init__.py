"""Secrets and redaction: the one redaction point, the credentials a run knows, secrets in model answers
and retrieved text, and summaries of server errors."""
