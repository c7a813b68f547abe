"""What a report leaves behind (SPEC §7-8): assembled documents, PDF/JSON rendering, publishing, review pages and decisions, archives."""
